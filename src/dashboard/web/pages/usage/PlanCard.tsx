/** The plan and its limit, the balance, and adding credit (which moves a Free account to Pro). */
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { ErrorMessage, StatusMessage } from "../../components/ErrorMessage.tsx";
import { TextInput } from "../../components/Field.tsx";
import { SubmitButton } from "../../components/SubmitButton.tsx";
import { useAction } from "../../components/useAction.ts";
import { formatCount, formatMoney } from "../../format.ts";
import type { Account } from "../../model.ts";
import { useSession } from "../../session.ts";

export function PlanCard({ account }: { account: Account }) {
  const { setAccount } = useSession();
  const [amount, setAmount] = useState("");
  const credit = useAction();
  const addCredit = (e: Event) => {
    e.preventDefault();
    void credit.run(async () => {
      // Sent as typed: an empty or odd amount gets the service's own message.
      const value = amount.trim() === "" ? null : Number(amount);
      const updated = await api.post<Account>("/dashboard/api/credit", { amount: value });
      setAccount(updated);
      setAmount("");
      credit.setStatus(`Credit added. Your balance is now ${formatMoney(updated.balance)} (${updated.plan_label}).`);
    });
  };
  return (
    <section class="card" aria-labelledby="plan-heading">
      <h2 id="plan-heading">Plan</h2>
      <dl class="facts">
        <div>
          <dt>Plan</dt>
          <dd>{account.plan_label}</dd>
        </div>
        <div>
          <dt>Rate limit</dt>
          <dd>{formatCount(account.rate_limit_per_minute)} calls per minute</dd>
        </div>
        <div>
          <dt>Balance</dt>
          <dd>{formatMoney(account.balance)}</dd>
        </div>
      </dl>
      {account.plan === "free" ? <p class="hint">Adding any credit moves the account to Pro (100 calls per minute) at once.</p> : null}
      <form class="inline-form compact" onSubmit={addCredit} aria-label="Add credit">
        <TextInput
          label="Amount (US dollars)"
          type="number"
          inputMode="decimal"
          step="0.01"
          value={amount}
          onValue={setAmount}
          errors={credit.issues("amount")}
        />
        <SubmitButton busy={credit.busy} busyLabel="Adding…">
          Add credit
        </SubmitButton>
      </form>
      <ErrorMessage error={credit.error} />
      <StatusMessage text={credit.status} />
    </section>
  );
}
