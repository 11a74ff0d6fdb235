/** The dashboard's own routes' wire shapes: the session, sign-up and sign-in bodies, credit. */
import { t } from "elysia";
import { AccountView } from "../accounts/model.ts";

export const SessionView = t.Object({
  account: AccountView,
  email: t.Nullable(t.String()),
  csrf_token: t.String({ description: "Send it back in X-CSRF-Token with every call that uses the session." }),
});

export const Credentials = t.Object({ email: t.String({ maxLength: 254 }), password: t.String({ maxLength: 200 }) });

export const SignUpBody = t.Object({
  email: t.String({ maxLength: 254 }),
  password: t.String({ maxLength: 200 }),
  name: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
});

export const CreditBody = t.Object({ amount: t.Number({ exclusiveMinimum: 0, maximum: 1_000 }) });

export const ClaimBody = t.Object({
  token: t.String({ maxLength: 200, description: "The token from the sign-in link (the part after `#`)." }),
  email: t.String({ maxLength: 254 }),
  password: t.String({ maxLength: 200 }),
});
