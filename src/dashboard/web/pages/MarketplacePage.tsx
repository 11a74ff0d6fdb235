/**
 * The marketplace: published endpoints, searched by text, category and tag,
 * a page at a time. The query lives in the URL, so a search is a link.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { TextInput } from "../components/Field.tsx";
import { PageHeading } from "../components/PageHeading.tsx";
import { useLoad } from "../components/useLoad.ts";
import type { ListingPage } from "../model.ts";
import { BASE, Link, navigate } from "../router.tsx";
import { ListingPrice } from "./marketplace/ListingPrice.tsx";

const PER_PAGE = 12;

function marketplaceHref(params: { q?: string; category?: string; tag?: string; page?: number }): string {
  const search = new URLSearchParams();
  if (params.q) search.set("q", params.q);
  if (params.category) search.set("category", params.category);
  if (params.tag) search.set("tag", params.tag);
  if (params.page && params.page > 1) search.set("page", String(params.page));
  const text = search.toString();
  return `${BASE}/marketplace${text ? `?${text}` : ""}`;
}

const fieldsKey = (fields: { q: string; category: string; tag: string }) => `${fields.q}\n${fields.category}\n${fields.tag}`;

export function listingHref(stub: string): string {
  return `${BASE}/marketplace/${encodeURIComponent(stub)}`;
}

export function MarketplacePage({ search }: { search: URLSearchParams }) {
  const q = search.get("q") ?? "";
  const category = search.get("category") ?? "";
  const tag = search.get("tag") ?? "";
  const page = Math.max(1, Number(search.get("page")) || 1);
  const [form, setForm] = useState({ q, category, tag });
  // Back, Forward and the page's links change the URL under the form: keep the fields in step. Only when the URL's
  // fields are not the form's own (the first render's, a search just sent): effects run after the page is shown, and
  // resetting the form then wiped what a quick hand had typed in meanwhile.
  const inUrl = useRef(fieldsKey({ q, category, tag }));
  useEffect(() => {
    const fields = fieldsKey({ q, category, tag });
    if (fields === inUrl.current) return;
    inUrl.current = fields;
    setForm({ q, category, tag });
  }, [q, category, tag]);

  const query = new URLSearchParams({ q, category, tag, page: String(page), per_page: String(PER_PAGE) });
  const listings = useLoad((signal) => api.get<ListingPage>(`/v1/marketplace?${query}`, { signal }), [q, category, tag, page]);
  const data = listings.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.per_page)) : 1;
  const filtered = q || category || tag;

  return (
    <section>
      <PageHeading title="Marketplace" />
      <p class="lead">Endpoints published by the accounts of this service. A call is billed to the caller; its publisher earns a share.</p>
      <form
        role="search"
        aria-label="Search the marketplace"
        class="card filters"
        onSubmit={(e) => {
          e.preventDefault();
          const sent = { q: form.q.trim(), category: form.category.trim(), tag: form.tag.trim() };
          inUrl.current = fieldsKey(sent);
          setForm(sent);
          navigate(marketplaceHref(sent));
        }}
      >
        <TextInput label="Search" type="search" value={form.q} onValue={(v) => setForm({ ...form, q: v })} maxLength={200} />
        <TextInput label="Category" value={form.category} onValue={(v) => setForm({ ...form, category: v })} maxLength={60} />
        <TextInput label="Tag" value={form.tag} onValue={(v) => setForm({ ...form, tag: v })} maxLength={40} />
        <div class="actions">
          <button type="submit">Search</button>
          {filtered ? <Link href={marketplaceHref({})}>Clear filters</Link> : null}
        </div>
      </form>

      <ErrorMessage error={listings.error} />
      <div role="status" class="status-slot neutral">
        {data
          ? `${data.total} ${data.total === 1 ? "endpoint" : "endpoints"}${filtered ? " match" : ""}.`
          : listings.loading
            ? "Loading…"
            : ""}
      </div>
      {data && data.items.length > 0 ? (
        <ul class="cards">
          {data.items.map((item) => (
            <li key={item.public_stub} class="card">
              <h2 class="h3">
                <Link href={listingHref(item.public_stub)}>{item.title}</Link>
              </h2>
              <p>{item.description}</p>
              <ListingPrice pricing={item.pricing} />
              <p class="muted">
                By {item.publisher} · version {item.latest_version}
                {item.category ? (
                  <>
                    {" · "}
                    <Link href={marketplaceHref({ category: item.category })}>{item.category}</Link>
                  </>
                ) : null}
              </p>
              {item.tags.length > 0 ? (
                <ul class="tags" aria-label="Tags">
                  {item.tags.map((t) => (
                    <li key={t}>
                      <Link href={marketplaceHref({ tag: t })} aria-label={`Tag ${t}`}>
                        {t}
                      </Link>
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}

      {data && pages > 1 ? (
        <nav aria-label="Pages" class="pager">
          {page > 1 ? <Link href={marketplaceHref({ q, category, tag, page: page - 1 })}>Previous page</Link> : <span />}
          <span>
            Page {page} of {pages}
          </span>
          {page < pages ? <Link href={marketplaceHref({ q, category, tag, page: page + 1 })}>Next page</Link> : <span />}
        </nav>
      ) : null}
    </section>
  );
}
