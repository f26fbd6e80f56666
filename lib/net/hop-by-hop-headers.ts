/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the
 * message, so whoever opens the connection sets them and nobody forwards them.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The headers that frame a message on its connection: the hop-by-hop ones and its length. Only the sender writes them. */
export const FRAMING_HEADERS: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, 'content-length']);
