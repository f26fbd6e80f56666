/** A POSIX-shell single-quoted string. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The curl command of a render request. The token stays out of it (and so
 * out of the clipboard): the command reads it from `$DOCRENDER_TOKEN`.
 */
export function curlCommand(url: string, body: unknown, outputFile: string): string {
  return (
    `curl -sS -X POST ${shellQuote(url)} -H "Authorization: Bearer $DOCRENDER_TOKEN" ` +
    `-H 'Content-Type: application/json' --data-binary ${shellQuote(JSON.stringify(body))} -o ${outputFile}`
  );
}
