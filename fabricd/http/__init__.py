"""The overseer web page: the daemon's own HTTP server, showing the fabric live and letting a person act in it.

Layers, as for gRPC: `server` (aiohttp routes and the per-request checks), `sessions` (sign-in and CSRF),
`live` (one shared snapshot per change, fed by the daemon's wake-ups), `views` (what an identity may see of it),
`actions` (what a person does, each as the RPC it stands for, checked by fabricd.rpc.auth's POLICIES), `panels`
(parts beyond the built-in ones: channels), and
`static/` (one HTML page, one script, one style sheet: no build step, nothing fetched from elsewhere).
"""
