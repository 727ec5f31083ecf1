//! storage/v1: buckets and objects (Supabase Storage API).
//!
//! Not served yet: every path answers as Supabase's API gateway does for a path no
//! service owns, so clients get JSON rather than the web app.

use actix_web::web;

pub fn routes(config: &mut web::ServiceConfig) {
    config
        .service(web::scope("/storage/v1").default_service(web::to(crate::web::no_route_handler)));
}
