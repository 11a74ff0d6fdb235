/**
 * The lineage, folded: one line on where this version stands (which one is
 * live, which is the draft), and every version, newest first, behind "All
 * versions". Making versions is the one action beside the version's state
 * (VersionState): an older release is reverted to by opening it and making a
 * new draft from it.
 */
import { formatTime } from "../../format.ts";
import type { EndpointRecord } from "../../model.ts";
import { Link } from "../../router.tsx";
import { endpointHref, StateBadge } from "../EndpointsPage.tsx";

interface TimelineProps {
  versions: EndpointRecord[];
  currentId: number;
  /** The words the endpoint was designed from: where its lineage starts. */
  designedFrom: string;
}

export function VersionTimeline({ versions, currentId, designedFrom }: TimelineProps) {
  const sorted = [...versions].sort((a, b) => b.version - a.version);
  const live = sorted.find((v) => v.is_live);
  const draft = sorted.find((v) => v.state === "draft");
  const others = [
    live && live.id !== currentId ? (
      <>
        <Link href={endpointHref(live.id)}>v{live.version}</Link> is live
      </>
    ) : null,
    draft && draft.id !== currentId ? (
      <>
        <Link href={endpointHref(draft.id)}>v{draft.version}</Link> is the draft
      </>
    ) : null,
  ].filter(Boolean);
  return (
    <section class="card" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <p>
        {sorted.length === 1 ? "This is the only version." : `${sorted.length} versions.`}
        {others.map((part, i) => (
          <span key={i}>
            {i === 0 ? " " : "; "}
            {part}
          </span>
        ))}
        {others.length > 0 ? "." : null}
      </p>
      {sorted.length === 1 ? <p class="muted">Designed from: “{designedFrom}”</p> : null}
      {sorted.length > 1 ? (
        <details>
          <summary>All versions ({sorted.length})</summary>
          <ol class="timeline">
            {sorted.map((version) => (
              <li key={version.id} class={version.id === currentId ? "current" : undefined}>
                <div class="timeline-head">
                  <Link href={endpointHref(version.id)} aria-current={version.id === currentId ? "page" : undefined}>
                    Version {version.version}
                  </Link>{" "}
                  <StateBadge record={version} />
                </div>
                <p class="muted">
                  {version.frozen_at ? `Released ${formatTime(version.frozen_at)}` : `Draft, last saved ${formatTime(version.updated_at)}`}
                </p>
                {version.version_notes ? <p class="notes">{version.version_notes}</p> : null}
              </li>
            ))}
          </ol>
          <p class="muted">Designed from: “{designedFrom}”</p>
          <p class="hint">To go back to an older version, open it and make a new draft from it, then release that.</p>
        </details>
      ) : null}
    </section>
  );
}
