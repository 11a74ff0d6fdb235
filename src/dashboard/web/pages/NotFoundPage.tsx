/** Any /dashboard path the app does not know. */
import { PageHeading } from "../components/PageHeading.tsx";
import { BASE, Link } from "../router.tsx";

export function NotFoundPage() {
  return (
    <section>
      <PageHeading title="Page not found" />
      <p>
        There is no dashboard page at this address. Go to <Link href={`${BASE}/usage`}>Plan and usage</Link>.
      </p>
    </section>
  );
}
