//! `cielo`: runs the stack, prints its status, or applies migrations.

use std::process::ExitCode;

/// Every request allocates many small, short-lived buffers across threads; mimalloc's
/// per-thread free lists serve that pattern with far less time in the allocator than glibc's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};
use gateway::config::Settings;
use gateway::keys::ApiKeys;
use gateway::status::{OutputFormat, StatusInfo};
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(error) => return fail(&error),
    };
    telemetry::init(&settings.log);

    match cli.command.unwrap_or(Command::Serve) {
        Command::Status { output } => status(&settings, output),
        Command::Serve => run_async(startup::serve(settings)),
        Command::Migrate => run_async(startup::migrate_only(settings)),
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
    let keys = match ApiKeys::load(settings) {
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
