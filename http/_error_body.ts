// What an HttpError says about a response body: the parsed body and the
// message (the body's `message` field, else the status text). Shared by
// HttpError.fromResponse and the client, which reads bodies within
// maxResponseSize first.

/** The parsed body (JSON, else text, `undefined` when empty) and message. */
export function describeErrorBody(
  text: string,
  status: number,
  statusText: string,
): { body: unknown; message: string } {
  let body: unknown;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  const fromBody = body !== null && typeof body === "object"
    ? (body as { message?: unknown }).message
    : undefined;
  const message = typeof fromBody === "string" && fromBody !== ""
    ? fromBody
    : reasonPhrase(status, statusText);
  return { body, message };
}

// Reason phrases for statuses, used when the response carries no status text
// (HTTP/2 and HTTP/3 have none).
const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  407: "Proxy Authentication Required",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  417: "Expectation Failed",
  418: "I'm a Teapot",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  423: "Locked",
  424: "Failed Dependency",
  425: "Too Early",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  507: "Insufficient Storage",
  508: "Loop Detected",
  511: "Network Authentication Required",
};

function reasonPhrase(status: number, text: string): string {
  if (text !== "") return text;
  return REASONS[status] ?? `HTTP ${status}`;
}
