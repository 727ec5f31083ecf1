// Runs one Edge Function in its own Deno process for the gateway's functions/v1 host.
//
// The function's module calls `Deno.serve(handler)` as it does on Supabase; here that call
// listens on the unix socket the gateway names (the second argument) instead, and this
// script prints `CIELO_LISTENING` on stdout once requests can be relayed to it. A handler that throws
// answers 500 with the `x-cielo-worker-error` marker, which the gateway turns into the edge
// runtime's WORKER_ERROR. Exit codes: 70 the module failed to load, 71 it never served.

const [entrypoint, socket] = Deno.args;
const nativeServe = Deno.serve.bind(Deno);
let serving = false;

function splitServeArguments(args) {
  if (typeof args[0] === "function") return { options: {}, handler: args[0] };
  const options = args[0] ?? {};
  const handler = typeof args[1] === "function" ? args[1] : options.handler;
  return { options, handler };
}

// The caller's address as the gateway saw it: the last `x-forwarded-for` entry (the socket's
// own peer is the gateway).
function remoteAddr(request) {
  const hops = (request.headers.get("x-forwarded-for") ?? "").split(",");
  return { transport: "tcp", hostname: hops[hops.length - 1].trim(), port: 0 };
}

Deno.serve = (...args) => {
  if (serving) throw new Error("Deno.serve can be called once per function");
  serving = true;
  const { options, handler } = splitServeArguments(args);
  if (typeof handler !== "function") throw new TypeError("Deno.serve needs a handler");
  const guarded = async (request, info) => {
    // Over a unix socket Deno writes the URL as http+unix://; functions expect the http://
    // URL they get on Supabase.
    if (request.url.startsWith("http+unix://")) {
      Object.defineProperty(request, "url", { value: "http://" + request.url.slice(12) })
    }
    try {
      return await handler(request, { ...info, remoteAddr: remoteAddr(request) });
    } catch (error) {
      console.error(error);
      return new Response(null, { status: 500, headers: { "x-cielo-worker-error": "1" } });
    }
  };
  return nativeServe({
    path: socket,
    signal: options.signal,
    onListen: () => console.log("CIELO_LISTENING"),
    onError: (error) => {
      console.error(error);
      return new Response(null, { status: 500, headers: { "x-cielo-worker-error": "1" } });
    },
  }, guarded);
};

// Supabase's runtime global; background work simply runs on in this long-lived worker.
globalThis.EdgeRuntime ??= {
  waitUntil(promise) {
    Promise.resolve(promise).catch((error) => console.error(error));
  },
};

// The gateway holds this process's stdin open; when the gateway goes away, so does the worker.
(async () => {
  const buffer = new Uint8Array(64);
  while ((await Deno.stdin.read(buffer)) !== null) { /* nothing is ever sent */ }
  Deno.exit(0);
})();

try {
  await import(entrypoint);
} catch (error) {
  console.error(error);
  Deno.exit(70);
}
if (!serving) {
  console.error(`${entrypoint} did not call Deno.serve`);
  Deno.exit(71);
}
