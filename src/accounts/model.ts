import { t } from "elysia";

export const AccountView = t.Object({
  id: t.String({ examples: ["acct_01jd3k5q7r9t0v2w4x6y8z0a2b"] }),
  name: t.String(),
  plan: t.Union([t.Literal("free"), t.Literal("pro"), t.Literal("enterprise")]),
  plan_label: t.String({ examples: ["Free (Starter)"] }),
  rate_limit_per_minute: t.Integer(),
  balance: t.Number({ description: "Credit in US dollars." }),
  key_id: t.Nullable(t.String()),
  key_prefix: t.Nullable(t.String({ description: "The public start of the calling key.", examples: ["sk_live_3fK9aQ2z"] })),
  created_at: t.String({ format: "date-time" }),
});

export const KeyView = t.Object({
  id: t.String({ examples: ["key_01jd3k5q7r9t0v2w4x6y8z0a2b"] }),
  name: t.Nullable(t.String()),
  prefix: t.String(),
  created_at: t.String({ format: "date-time" }),
  last_used_at: t.Nullable(t.String({ format: "date-time", description: "Updated at most once a minute." })),
  revoked_at: t.Nullable(t.String({ format: "date-time" })),
  expires_at: t.Nullable(
    t.String({
      format: "date-time",
      description: "From this time on the key is refused (401). Null: it never expires. A rotated key's end of grace.",
    }),
  ),
  replaced_by: t.Nullable(
    t.String({
      description: "The key a rotation made to succeed this one; null when not rotated.",
      examples: ["key_01jd3k5q7r9t0v2w4x6y8z0a2b"],
    }),
  ),
});

export const CreatedKeyView = t.Composite([
  KeyView,
  t.Object({ api_key: t.String({ description: "The key itself. Shown only in this response: store it now." }) }),
]);

export const KeyList = t.Object({ keys: t.Array(KeyView) });

export const RotatedKeyView = t.Composite([
  CreatedKeyView,
  t.Object({ rotated_from: t.Composite([KeyView], { description: "The key this one succeeds, as the rotation left it." }) }),
]);

export const CreateKeyBody = t.Nullable(
  t.Object({
    name: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 100 }))),
    expires_in_days: t.Optional(
      t.Nullable(t.Integer({ minimum: 1, maximum: 3650, description: "Days until the key stops working. Absent or null: never." })),
    ),
  }),
);

export const RotateKeyBody = t.Nullable(
  t.Object({
    grace_seconds: t.Optional(
      t.Integer({
        minimum: 0,
        maximum: 2_592_000,
        default: 86_400,
        description: "How long the old key keeps working (at most 30 days). 0 stops it at once.",
      }),
    ),
  }),
);

export const KeyIdParams = t.Object({ key_id: t.String({ maxLength: 64 }) });

export const ErrorBody = t.Object({ detail: t.String(), error: t.String() });
