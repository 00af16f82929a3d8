/**
 * Passwords hidden in messages about archive URLs (issue 37: a malformed URL whose password held a space was printed
 * in clear). No imports, so the CLI's usage-error printer can mask a URL given as a stray argument without loading
 * the PostgreSQL client.
 */

/**
 * `text` with any password in it replaced by `***`, for messages. Whatever does not parse is masked generously: a
 * password may hold spaces, `@`, `:`, `/` or `%`.
 *   `postgresql://bob:pa ss@w@rd@ho st/db` → `postgresql://bob:***@ho st/db` (up to the last `@`)
 *   `postgresql://bob:secret`              → `postgresql://bob:***` (no `@`: a port is digits, anything else hidden)
 *   `host=db password='a b' user=bob`      → `host=db password=*** user=bob`
 *   `…/db?sslmode=require&password=x`      → `…/db?sslmode=require&password=***`
 */
export function maskPassword(text: string): string {
  // a password=… value runs to the next `key=` or `&` (quoted or not: a stray quote must not end the mask early)
  const keyValues = text.replace(/(\b\w*password\s*=)[\s\S]*?(?=\s+\w+\s*=|&|$)/gi, "$1***");
  const start = /[a-z][a-z0-9+.-]*:(?:\/\/)?[^:@/?#\s]*:/i.exec(keyValues);
  if (!start) return keyValues;
  const head = keyValues.slice(0, start.index + start[0].length);
  const rest = keyValues.slice(head.length);
  const at = rest.lastIndexOf("@");
  if (at >= 0) return `${head}***${rest.slice(at)}`;
  return /^\d*(?:[/?#\s]|$)/.test(rest) ? keyValues : `${head}***`;
}
