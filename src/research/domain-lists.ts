/**
 * A call's two domain lists, under the names its face gives them
 * (source_whitelist and source_blacklist on a search, include_domains and
 * exclude_domains on a designed endpoint): each entry a domain or an http(s)
 * URL prefix, an empty list saying nothing, and never both lists at once.
 */
import { isEmptyScope, scopeOf, type SourceScope } from "../contents/source-scope.ts";
import type { ValidationIssue } from "../errors.ts";

export interface DomainList {
  /** The body field, as the issues name it. */
  name: string;
  /**
   * The list as given, or null when it is absent. The lists are read in turn, so a face that checks a
   * list's shape as it reads it (pushing its own issue and answering null) reports issues in field order.
   */
  read: () => string[] | null;
}

export interface DomainScopes {
  whitelist: SourceScope | null;
  blacklist: SourceScope | null;
}

function scopeOfList(list: DomainList, issues: ValidationIssue[]): SourceScope | null {
  const { scope, invalid } = scopeOf(list.read() ?? []);
  for (const index of invalid)
    issues.push({ loc: ["body", list.name, index], msg: "expected a domain (example.com) or an http(s) URL prefix", type: "value_error" });
  return isEmptyScope(scope) ? null : scope;
}

/** The sources to keep to (`only`) and to leave out (`never`); what is wrong goes to `issues`. */
export function domainScopes(only: DomainList, never: DomainList, issues: ValidationIssue[]): DomainScopes {
  const whitelist = scopeOfList(only, issues);
  const blacklist = scopeOfList(never, issues);
  if (whitelist && blacklist) {
    issues.push({
      loc: ["body", only.name],
      msg: `${only.name} and ${never.name} cannot both be given: send one of them`,
      type: "value_error",
    });
  }
  return { whitelist, blacklist };
}
