/** The marketplace's wire shapes: listings, their versions, publishing, browsing. */
import { t } from "elysia";
import { IntegrationView } from "../endpoints/model.ts";

const ListingVersion = t.Object({
  version: t.Integer(),
  source_version: t.Integer(),
  published_at: t.String(),
  version_notes: t.Nullable(t.String()),
});

export const Listing = t.Object({
  public_stub: t.String(),
  title: t.String(),
  description: t.String(),
  category: t.Nullable(t.String()),
  tags: t.Array(t.String()),
  publisher: t.String(),
  latest_version: t.Integer(),
  versions: t.Array(ListingVersion),
  created_at: t.String(),
  updated_at: t.String(),
});

/** What a call costs: read-only, from the service's price and the listing's own recent calls. */
export const ListingPricing = t.Object(
  {
    per_million_tokens: t.Number({
      description:
        "US dollars a paying account is charged per million tokens a call uses, internal processing included (the free plan is never charged).",
    }),
    average_tokens: t.Nullable(
      t.Number({ description: "Average tokens of the listing's recent successful calls (sampled_calls of them); null before its first." }),
    ),
    average_cost: t.Nullable(
      t.Number({ description: "average_tokens at per_million_tokens: about what one call costs a paying account, in US dollars." }),
    ),
    sampled_calls: t.Integer({ description: "How many of the listing's most recent successful calls the average is over (at most 100)." }),
  },
  { description: "How calls of this listing are priced, and what one has cost lately." },
);

const Priced = t.Object({ pricing: ListingPricing });

export const ListingDetail = t.Composite([
  Listing,
  Priced,
  t.Object({
    shown_version: t.Integer(),
    api_name: t.String(),
    inputs: t.Array(t.Unknown()),
    output_format: t.Unknown(),
    integration: IntegrationView,
    example_request: t.Unknown(),
  }),
]);

export const PublishBody = t.Optional(
  t.Nullable(
    t.Object({
      public_stub: t.Optional(t.Nullable(t.String({ maxLength: 64 }))),
      title: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
      description: t.Optional(t.Nullable(t.String({ maxLength: 2_000 }))),
      category: t.Optional(t.Nullable(t.String({ maxLength: 60 }))),
      tags: t.Optional(t.Nullable(t.Array(t.String({ maxLength: 40 }), { maxItems: 20 }))),
    }),
  ),
);

export const Published = t.Composite([Listing, t.Object({ published_version: t.Integer(), integration: IntegrationView })]);

export const BrowseQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200 })),
  category: t.Optional(t.String({ maxLength: 60 })),
  tag: t.Optional(t.String({ maxLength: 40 })),
  page: t.Optional(t.Numeric({ minimum: 1, maximum: 10_000 })),
  per_page: t.Optional(t.Numeric({ minimum: 1, maximum: 100 })),
});

export const ListingPage = t.Object({
  items: t.Array(t.Composite([Listing, Priced])),
  total: t.Integer(),
  page: t.Integer(),
  per_page: t.Integer(),
});

export const PublicStubParams = t.Object({ public_stub: t.String({ maxLength: 64 }) });

export const ShownVersionQuery = t.Object({
  version: t.Optional(t.Numeric({ minimum: 1, maximum: 1_000_000, description: "A published version (default: the newest)." })),
});

export const SubscriptionView = t.Object({
  public_stub: t.String(),
  subscribed: t.Boolean({ description: "Whether the endpoint is now among your MCP tools." }),
});
