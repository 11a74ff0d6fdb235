/**
 * Every version of the lineage, newest first: draft or released (when), live,
 * and notes. An older released version can be the start of a new draft (a
 * revert: the draft is a copy of it), which the API allows only while no
 * draft exists.
 */
import { formatTime } from "../../format.ts";
import type { EndpointRecord } from "../../model.ts";
import { Link } from "../../router.tsx";
import { endpointHref, StateBadge } from "../EndpointsPage.tsx";

interface TimelineProps {
  versions: EndpointRecord[];
  currentId: number;
  busy: boolean;
  onRevert: (version: EndpointRecord) => void;
}

export function VersionTimeline({ versions, currentId, busy, onRevert }: TimelineProps) {
  const sorted = [...versions].sort((a, b) => b.version - a.version);
  const draft = sorted.find((v) => v.state === "draft");
  const newest = sorted[0]?.version;
  return (
    <section class="card" aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      {draft ? <p class="hint">Version {draft.version} is a draft: release it before starting another version.</p> : null}
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
            {version.state === "released" && version.version !== newest && !draft ? (
              <button type="button" class="secondary small" disabled={busy} onClick={() => onRevert(version)}>
                Revert to v{version.version}
              </button>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
