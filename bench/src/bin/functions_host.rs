//! `bench/ai.sh`'s function host measurement: the gateway (its whole middleware, the API-key
//! gate and the functions/v1 host) serving one trivial native function, `hello`, beside
//! actix-web answering the same handler directly on `--direct-port`. Their rates' ratio is
//! what the function host costs per request. The database is `DATABASE_URL`'s, as the
//! gateway's own settings say (`JWT_SECRET`, `API_PORT`, …).

#![allow(clippy::print_stdout)]

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::Arc;

use actix_web::{App, HttpResponse, HttpServer, web};
use clap::Parser;
use futures_util::future::LocalBoxFuture;
use gateway::config::Settings;
use gateway::db::Database;
use gateway::functions_v1::native::{Invocation, NativeFunction, NativeFunctions};
use gateway::identity::ProjectKeys;
use gateway::startup::Application;

#[derive(Debug, Parser)]
struct Args {
    /// Port of the plain actix-web server answering the same handler.
    #[arg(long)]
    direct_port: u16,
}

/// The trivial function both servers answer with.
fn hello() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(r#"{"message":"Hello"}"#)
}

struct Hello;

impl NativeFunction for Hello {
    // As the Edge Function it is compared with (`verify_jwt = false`).
    fn verify_jwt(&self) -> bool {
        false
    }

    fn call(&self, _invocation: Invocation) -> LocalBoxFuture<'static, HttpResponse> {
        Box::pin(async { hello() })
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let settings = Settings::from_env()?;
    actix_web::rt::System::new().block_on(async move {
        let keys = ProjectKeys::load(&settings)?;
        let db = Database::connect_and_migrate(&settings.admin_database_url(), &settings).await?;
        let mut natives = NativeFunctions::new();
        natives.register("hello", Hello);
        let app = Application::build_with_functions(Arc::new(settings), keys, db, natives).await?;
        let direct = HttpServer::new(|| App::new().route("/", web::to(|| async { hello() })))
            .bind(("127.0.0.1", args.direct_port))?
            .run();
        println!("ready");
        let (host, direct) = tokio::join!(app.run_until_stopped(), direct);
        host?;
        direct?;
        Ok(())
    })
}
