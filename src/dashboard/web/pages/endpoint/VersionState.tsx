/**
 * Where the version is shown, what its state means: Draft (editable) or
 * Released (never changes), and which version the unversioned URL runs
 * (Live: the newest released one, or, before any release, the draft). Beside
 * it the one action that moves a version on: "Release v3" on a draft, "New
 * draft from v3" on a released version (or the way to the draft, when the
 * endpoint has one already: one draft at a time).
 */
import type { ComponentChildren } from "preact";
import type { EndpointRecord } from "../../model.ts";
import { Link } from "../../router.tsx";
import { endpointHref, StateBadge } from "../EndpointsPage.tsx";
import { usageHref, viewOf } from "../usage/usage-view.ts";

interface VersionStateProps {
  record: EndpointRecord;
  versions: EndpointRecord[];
  busy: boolean;
  onRelease: () => void;
  onNewDraft: () => void;
}

export function VersionState({ record, versions, busy, onRelease, onNewDraft }: VersionStateProps) {
  const draft = record.state === "draft";
  const unversioned = `/v1/user-defined-service/${record.stub}`;
  const otherDraft = versions.find((v) => v.state === "draft" && v.id !== record.id);
  const live = versions.find((v) => v.is_live);

  let whatItIs: ComponentChildren;
  if (draft && record.is_live) {
    whatItIs = (
      <>
        <strong>Draft</strong>: you can edit it. <strong>Live</strong>: nothing is released yet, so the unversioned URL runs this draft and
        each save changes what its callers get.
      </>
    );
  } else if (draft) {
    whatItIs = (
      <>
        <strong>Draft</strong>: you can edit it; it runs only at its own URL, …/v{record.version}. <strong>Live</strong> is v
        {record.live_version}: the unversioned URL runs it until you release this draft.
      </>
    );
  } else if (record.is_live) {
    whatItIs = (
      <>
        <strong>Released</strong>: it never changes. <strong>Live</strong>: the unversioned URL runs it, the newest released version.
      </>
    );
  } else {
    whatItIs = (
      <>
        <strong>Released</strong>: it never changes, and stays callable at …/v{record.version}. <strong>Live</strong> is v
        {record.live_version}, the newest released version: the unversioned URL runs that one.
      </>
    );
  }

  return (
    <section class="card version-state" aria-labelledby="state-heading">
      <h2 id="state-heading" class="h3">
        Version {record.version} <StateBadge record={record} />
      </h2>
      <p>{whatItIs}</p>
      <p class="hint">
        Unversioned URL: <code class="wrap">POST {unversioned}</code>
        {live && live.id !== record.id ? (
          <>
            {" "}
            (runs <Link href={endpointHref(live.id)}>v{live.version}</Link>)
          </>
        ) : null}
        {" · "}
        <Link href={usageHref({ ...viewOf(new URLSearchParams()), apiId: String(record.id) })}>Usage of v{record.version}</Link>
      </p>
      <div class="actions">
        {draft ? (
          <>
            <button type="button" disabled={busy} onClick={onRelease}>
              Release v{record.version}
            </button>
            <span class="hint">Releasing fixes it for good and makes it live.</span>
          </>
        ) : otherDraft ? (
          <>
            <Link href={endpointHref(otherDraft.id)}>Edit draft v{otherDraft.version}</Link>
            <span class="hint">An endpoint has one draft at a time.</span>
          </>
        ) : (
          <>
            <button type="button" disabled={busy} onClick={onNewDraft}>
              New draft from v{record.version}
            </button>
            <span class="hint">A copy to edit; v{record.live_version} stays live until you release it.</span>
          </>
        )}
      </div>
    </section>
  );
}
