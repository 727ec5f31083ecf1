//! `cielo`: runs the stack, prints its status, applies migrations, manages signing keys,
//! generates a client's types from the database schema, fetches the local model, or prints
//! the settings reference.

use std::process::ExitCode;

/// Every request allocates many small, short-lived buffers across threads; mimalloc's
/// per-thread free lists serve that pattern with far less time in the allocator than glibc's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};
use gateway::config::Settings;
use gateway::dev::status::{OutputFormat, StatusInfo};
use gateway::identity::ProjectKeys;
use gateway::{startup, telemetry};

#[derive(Debug, Parser)]
#[command(
    name = "cielo",
    version,
    about = "Supabase-compatible backend and teacher planning app"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start the database (embedded unless DATABASE_URL is set), the API and the web app.
    Serve,
    /// Print URLs and keys, like `supabase status`.
    Status {
        /// `pretty` for people, `env` for KEY="value" lines.
        #[arg(short = 'o', long = "output", value_enum, default_value = "pretty")]
        output: OutputFormat,
    },
    /// Apply pending database migrations and exit.
    Migrate,
    /// About the settings themselves.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Manage the JWT signing keys (needs the running stack, or DATABASE_URL).
    SigningKeys {
        #[command(subcommand)]
        action: KeysAction,
    },
    /// Generate code from the database schema, like `supabase gen`:
    /// `cielo gen types typescript > src/lib/database.types.ts`.
    Gen {
        #[command(subcommand)]
        what: gateway::typegen::GenCommand,
    },
    /// The local model's files: `cielo model fetch` downloads the default model once.
    Model {
        #[command(subcommand)]
        action: gateway::model_command::ModelCommand,
    },
}

#[derive(Debug, Subcommand)]
enum ConfigAction {
    /// Print docs/configuration.md: every environment variable, its default and meaning.
    Docs,
}

#[derive(Debug, Subcommand)]
enum KeysAction {
    /// Every managed key with its status.
    List,
    /// A new key in standby: published in the JWKS, not signing yet.
    Add {
        #[arg(long, default_value = "ES256", value_parser = ["ES256", "RS256"])]
        alg: String,
    },
    /// The standby key (a new one when there is none) starts signing.
    Rotate {
        #[arg(long, default_value = "ES256", value_parser = ["ES256", "RS256"])]
        alg: String,
    },
    /// A key stops being accepted (never the one in use).
    Revoke { kid: String },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Documenting the settings must work whatever the environment holds.
    if let Some(Command::Config {
        action: ConfigAction::Docs,
    }) = cli.command
    {
        return config_docs();
    }
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(error) => return fail(&error),
    };
    telemetry::init(&settings.log);

    match cli.command.unwrap_or(Command::Serve) {
        Command::Status { output } => status(&settings, output),
        Command::Serve => run_async(startup::serve(settings)),
        Command::Migrate => run_async(startup::migrate_only(settings)),
        Command::Config { .. } => config_docs(),
        Command::SigningKeys { action } => signing_keys(&settings, action),
        Command::Gen { what } => generate(&settings, what),
        Command::Model { action } => model(&settings, action),
    }
}

#[allow(clippy::print_stdout)]
fn model(settings: &Settings, action: gateway::model_command::ModelCommand) -> ExitCode {
    let run = gateway::model_command::run(settings, action);
    match actix_web::rt::System::new().block_on(run) {
        Ok(output) => {
            print!("{output}");
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error),
    }
}

#[allow(clippy::print_stdout)]
fn generate(settings: &Settings, command: gateway::typegen::GenCommand) -> ExitCode {
    let run = gateway::typegen::run(settings, command);
    match actix_web::rt::System::new().block_on(run) {
        Ok(output) => {
            print!("{output}");
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error),
    }
}

#[allow(clippy::print_stdout)]
fn signing_keys(settings: &Settings, action: KeysAction) -> ExitCode {
    use gateway::identity::signing_keys::{KeyCommand, run_command};
    let command = match action {
        KeysAction::List => KeyCommand::List,
        KeysAction::Add { alg } => KeyCommand::Add { alg },
        KeysAction::Rotate { alg } => KeyCommand::Rotate { alg },
        KeysAction::Revoke { kid } => KeyCommand::Revoke { kid },
    };
    match actix_web::rt::System::new().block_on(run_command(settings, command)) {
        Ok(output) => {
            print!("{output}");
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error),
    }
}

fn run_async(
    future: impl std::future::Future<Output = Result<(), startup::StartError>>,
) -> ExitCode {
    match actix_web::rt::System::new().block_on(future) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(&error),
    }
}

#[allow(clippy::print_stdout)]
fn status(settings: &Settings, output: OutputFormat) -> ExitCode {
    let keys = match ProjectKeys::load(settings) {
        Ok(keys) => keys,
        Err(error) => return fail(&error),
    };
    let info = StatusInfo::new(settings, &keys);
    print!("{}", info.render(output));
    if output == OutputFormat::Pretty {
        let port = settings.api.port;
        let listening = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
        if !listening {
            eprintln!("\nNothing is listening on port {port}: start the stack with `make run`.");
        }
    }
    ExitCode::SUCCESS
}

fn fail(error: &dyn std::error::Error) -> ExitCode {
    eprintln!("error: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        eprintln!("  caused by: {cause}");
        source = cause.source();
    }
    ExitCode::FAILURE
}

#[allow(clippy::print_stdout)]
fn config_docs() -> ExitCode {
    print!("{}", gateway::config::variables::markdown());
    ExitCode::SUCCESS
}
