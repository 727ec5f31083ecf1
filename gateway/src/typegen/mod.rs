//! `cielo gen types typescript`: the TypeScript types of a database's schemas, in the layout
//! of `supabase gen types typescript`, for `createClient<Database>()` in any app pointed at
//! Cielo. It reads the schema PostgreSQL is running (from `--db-url`, `DATABASE_URL`, or the
//! embedded cluster, the running stack's or started for the occasion) and prints the module.
//! Two things supabase's generator adds are left out: relationships of views (it infers them
//! from the view's definition) and a table's computed fields (functions taking its row).

mod introspect;
pub mod model;
pub mod render;

use secrecy::ExposeSecret;
use tokio_postgres::{Client, NoTls};

use crate::config::Settings;
use crate::startup::{self, StartError};

/// `cielo gen ...`
#[derive(Debug, clap::Subcommand)]
pub enum GenCommand {
    /// Types for a client library, from the database schema.
    Types {
        #[command(subcommand)]
        language: TypesLanguage,
    },
}

#[derive(Debug, clap::Subcommand)]
pub enum TypesLanguage {
    /// The `Database` type for supabase-js (`createClient<Database>(...)`), on stdout.
    Typescript(TypescriptArgs),
}

#[derive(Debug, clap::Args)]
pub struct TypescriptArgs {
    /// PostgreSQL URL to read the schema from [default: DATABASE_URL, else the embedded cluster]
    #[arg(long = "db-url", value_name = "URL")]
    pub db_url: Option<String>,
    /// Schema to generate types for; repeat for several.
    #[arg(long = "schema", value_name = "NAME", default_value = "public")]
    pub schemas: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TypegenError {
    #[error("reading the database schema failed: {0}")]
    Database(#[from] tokio_postgres::Error),
    #[error("schema \"{0}\" does not exist")]
    NoSuchSchema(String),
    #[error(transparent)]
    Start(#[from] StartError),
}

/// Runs a `cielo gen` command and returns what it prints.
pub async fn run(settings: &Settings, command: GenCommand) -> Result<String, TypegenError> {
    let GenCommand::Types {
        language: TypesLanguage::Typescript(args),
    } = command;
    if let Some(url) = &args.db_url {
        return typescript(url, &args.schemas).await;
    }
    let url = settings.admin_database_url();
    if !settings.uses_embedded_database() {
        return typescript(url.expose_secret(), &args.schemas).await;
    }
    // The embedded cluster: the running stack's if it answers, else started just for this.
    if let Ok(client) = connect(url.expose_secret()).await {
        return read(client, &args.schemas).await;
    }
    let embedded = startup::start_embedded_database(settings).await?;
    let result = match &embedded {
        Some(embedded) => {
            let local = embedded.local_url(&settings.database.password, "postgres");
            typescript(local.expose_secret(), &args.schemas).await
        }
        None => typescript(url.expose_secret(), &args.schemas).await,
    };
    if let Some(embedded) = embedded {
        embedded.stop().await;
    }
    result
}

/// The TypeScript module for `schemas` (sorted, each once) of the database at `url`.
pub async fn typescript(url: &str, schemas: &[String]) -> Result<String, TypegenError> {
    read(connect(url).await?, schemas).await
}

async fn connect(url: &str) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            tracing::warn!(%error, "type generation: database connection ended");
        }
    });
    Ok(client)
}

async fn read(mut client: Client, schemas: &[String]) -> Result<String, TypegenError> {
    let mut schemas = schemas.to_vec();
    schemas.sort();
    schemas.dedup();
    let catalog = introspect::catalog(&mut client, &schemas).await?;
    Ok(render::render(&catalog))
}

#[cfg(test)]
mod tests;
