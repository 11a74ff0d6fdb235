/**
 * Publishing a released version to the marketplace: an immutable snapshot.
 * A draft is not offered it: releasing is the one action of VersionState
 * (the API would release the draft on publishing; the page keeps one way).
 * Folded under its summary, as a secondary task of the page.
 */
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { ErrorMessage } from "../../components/ErrorMessage.tsx";
import { TextArea, TextInput } from "../../components/Field.tsx";
import { SubmitButton } from "../../components/SubmitButton.tsx";
import { useAction } from "../../components/useAction.ts";
import type { EndpointRecord, Listing } from "../../model.ts";
import { BASE, Link } from "../../router.tsx";

type Published = Listing & { published_version: number; source?: number };

export function PublishForm({ record, onPublished }: { record: EndpointRecord; onPublished: () => void }) {
  const [title, setTitle] = useState(record.api_name);
  const [description, setDescription] = useState(record.original_prompt);
  const [category, setCategory] = useState("");
  const [tags, setTags] = useState("");
  const [published, setPublished] = useState<Published | null>(null);
  const publishing = useAction();
  const { issues } = publishing;

  // A released version does not change: once published, publishing it again is refused (409) until a new version is.
  const done = published !== null && published.source === record.id;

  const publish = (e: Event) => {
    e.preventDefault();
    setPublished(null);
    void publishing.run(async () => {
      const body = {
        title: title.trim() || null,
        description: description.trim() || null,
        category: category.trim() || null,
        tags: tags
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      };
      const result = await api.post<Published>(`/v1/design-api/${encodeURIComponent(record.id)}/publish`, body);
      setPublished({ ...result, source: record.id });
      onPublished();
    });
  };

  if (record.state === "draft") {
    return (
      <details class="card">
        <summary>Publish to the marketplace</summary>
        <p>Only released versions are published. Release v{record.version} first, then publish it here.</p>
      </details>
    );
  }
  return (
    <details class="card">
      <summary>Publish to the marketplace</summary>
      <form class="stack" onSubmit={publish} aria-label="Publish to the marketplace" noValidate>
        <p class="hint">Publishing adds version {record.version} as a snapshot any account can call. Snapshots never change.</p>
        <TextInput label="Title" value={title} onValue={setTitle} maxLength={200} errors={issues("title")} />
        <TextArea
          label="Description"
          rows={3}
          value={description}
          onValue={setDescription}
          maxLength={2000}
          errors={issues("description")}
        />
        <TextInput
          label="Category"
          hint="For example: companies, finance, science."
          value={category}
          onValue={setCategory}
          maxLength={60}
          errors={issues("category")}
        />
        <TextInput label="Tags" hint="Comma-separated." value={tags} onValue={setTags} errors={issues("tags")} />
        <div class="actions">
          {done ? (
            <button type="submit" disabled>
              Published
            </button>
          ) : (
            <SubmitButton busy={publishing.busy} busyLabel="Publishing…">
              Publish
            </SubmitButton>
          )}
        </div>
        <ErrorMessage error={publishing.error} />
        <div role="status">
          {published ? (
            <p class="success">
              Published as version {published.published_version} of{" "}
              <Link href={`${BASE}/marketplace/${encodeURIComponent(published.public_stub)}`}>{published.title}</Link>. To publish again,
              make a new version, change it and publish that.
            </p>
          ) : null}
        </div>
      </form>
    </details>
  );
}
