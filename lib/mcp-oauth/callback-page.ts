/**
 * The page the operator's browser lands on once the authorization server sent it back and the code was exchanged:
 * it says what was connected, and closes itself when the browser lets it (the control room opened it as a popup);
 * the card updates by itself. Nothing secret is on it.
 */
export function callbackPage(participant: string, server: string): string {
  const what = `${escapeHtml(participant)} is connected to ${escapeHtml(server)}`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Connected</title>
<style>body{font:16px/1.5 system-ui,sans-serif;background:#020617;color:#e2e8f0;display:grid;place-items:center;min-height:90vh;margin:0}main{max-width:32rem;padding:1.5rem}h1{font-size:1.25rem;color:#6ee7b7}</style>
</head>
<body><main><h1>Connected</h1><p>${what}. The bridge is reconnecting with its new authorization.</p><p>You can close this tab and go back to the control room.</p></main>
<script>setTimeout(function () { window.close(); }, 1500);</script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
