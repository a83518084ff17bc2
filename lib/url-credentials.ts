/**
 * One rule for showing or writing a URL that may carry credentials (a database URL, a git remote,
 * a webhook address): the password in its user part and every credential query parameter
 * (`?password=`, `sslpassword=`, `pwd=`) go; the user name goes too unless `keepUserName` (a
 * database URL needs it; pg takes the password from PGPASSWORD or ~/.pgpass). `standIn` marks
 * where a password was. Text that is not a `scheme://` URL (scp-style `git@host:path`) stays.
 */
const CREDENTIAL_PARAMETER = /^(?:password|passwd|pwd|pass|sslpassword|pgpassword)$/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export function withoutCredentials(url: string, options: { keepUserName?: boolean; standIn?: string } = {}): string {
  if (!SCHEME.test(url)) return url;
  const authorityStart = url.indexOf("//") + 2;
  const authorityEnd = authorityEndOf(url, authorityStart);
  const authority = authorityEnd < 0 ? url.slice(authorityStart) : url.slice(authorityStart, authorityStart + authorityEnd);
  const rest = authorityEnd < 0 ? "" : url.slice(authorityStart + authorityEnd);
  // The last "@" ends the user part: a password may itself hold an unescaped "@".
  const at = authority.lastIndexOf("@");
  let host = authority;
  if (at >= 0) {
    const userInfo = authority.slice(0, at);
    const colon = userInfo.indexOf(":");
    const user = colon < 0 ? userInfo : userInfo.slice(0, colon);
    const password = colon >= 0 && options.standIn !== undefined ? `:${options.standIn}` : "";
    const kept = options.keepUserName ? `${user}${password}` : "";
    host = `${kept ? `${kept}@` : ""}${authority.slice(at + 1)}`;
  }
  return `${url.slice(0, authorityStart)}${host}${withoutCredentialParameters(rest, options.standIn)}`;
}

/**
 * Where the authority ends (relative to its start; -1: the URL's end). A password holding an
 * unescaped "/", "?" or "#" ends it early: `user:pa#ss@host` reads as host `user` with port
 * `pa`. A "port" that is no number, with an "@" after it, says a password was cut: the user part
 * then runs to the last "@", so no piece of the password is shown.
 */
function authorityEndOf(url: string, start: number): number {
  const end = url.slice(start).search(/[/?#]/);
  if (end < 0) return end;
  const authority = url.slice(start, start + end);
  const colon = authority.indexOf(":");
  const lastAt = url.lastIndexOf("@");
  if (authority.includes("@") || authority.startsWith("[") || colon < 0 || /^\d+$/.test(authority.slice(colon + 1)) || lastAt < start + end) return end;
  const afterUser = url.slice(lastAt).search(/[/?#]/);
  return afterUser < 0 ? -1 : lastAt - start + afterUser;
}

function withoutCredentialParameters(pathQueryFragment: string, standIn: string | undefined): string {
  const queryStart = pathQueryFragment.indexOf("?");
  if (queryStart < 0) return pathQueryFragment;
  const fragmentStart = pathQueryFragment.indexOf("#", queryStart);
  const query = pathQueryFragment.slice(queryStart + 1, fragmentStart < 0 ? undefined : fragmentStart);
  const pairs = query.split("&").flatMap((pair) => {
    const name = pair.split("=")[0];
    if (!CREDENTIAL_PARAMETER.test(safelyDecoded(name))) return [pair];
    return standIn === undefined ? [] : [`${name}=${standIn}`];
  });
  const fragment = fragmentStart < 0 ? "" : pathQueryFragment.slice(fragmentStart);
  return `${pathQueryFragment.slice(0, queryStart)}${pairs.length ? `?${pairs.join("&")}` : ""}${fragment}`;
}

function safelyDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
