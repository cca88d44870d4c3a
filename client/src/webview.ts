/** A fresh value for a webview's script nonce: the content security policy runs only the script that carries it. */
export function nonce(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}
