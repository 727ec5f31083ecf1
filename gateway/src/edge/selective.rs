//! A middleware run only for the requests it has work for: [`Selective`] hands the others
//! (CORS without `Origin`, compression without `Accept-Encoding`) straight to the inner
//! service, with an optional fixed header in place of what the middleware would have added.
//!
//! Why it works this way: docs/decisions/0005-selective-middleware.md.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, ready};

use actix_web::Error;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform, forward_ready};
use actix_web::http::header::{HeaderName, HeaderValue};
use futures_util::future::LocalBoxFuture;
use pin_project_lite::pin_project;

/// `middleware` for the requests `applies` accepts; the others skip it.
#[derive(Debug, Clone)]
pub struct Selective<M> {
    middleware: M,
    applies: fn(&ServiceRequest) -> bool,
    /// Set on the responses (not on `Err`s) to the requests that skipped the middleware.
    otherwise: Option<(HeaderName, HeaderValue)>,
}

impl<M> Selective<M> {
    pub fn new(middleware: M, applies: fn(&ServiceRequest) -> bool) -> Self {
        Self {
            middleware,
            applies,
            otherwise: None,
        }
    }

    /// A header the skipped requests' responses get, unless the service set it itself.
    pub fn otherwise_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.otherwise = Some((name, value));
        self
    }
}

impl<S, B, M, MB> Transform<S, ServiceRequest> for Selective<M>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody,
    M: Transform<Rc<S>, ServiceRequest, Response = ServiceResponse<MB>, Error = Error>,
    M::Future: 'static,
    M::InitError: 'static,
    MB: MessageBody,
{
    type Response = ServiceResponse<EitherBody<B, MB>>;
    type Error = Error;
    type Transform = SelectiveService<S, M::Transform>;
    type InitError = M::InitError;
    type Future = LocalBoxFuture<'static, Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        // Both paths end in the same inner service.
        let direct = Rc::new(service);
        let wrapped = self.middleware.new_transform(Rc::clone(&direct));
        let applies = self.applies;
        let otherwise = self.otherwise.clone();
        Box::pin(async move {
            Ok(SelectiveService {
                direct,
                wrapped: wrapped.await?,
                applies,
                otherwise,
            })
        })
    }
}

/// The service [`Selective`] makes.
pub struct SelectiveService<S, W> {
    direct: Rc<S>,
    wrapped: W,
    applies: fn(&ServiceRequest) -> bool,
    otherwise: Option<(HeaderName, HeaderValue)>,
}

impl<S, W> std::fmt::Debug for SelectiveService<S, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelectiveService")
            .field("otherwise", &self.otherwise)
            .finish_non_exhaustive()
    }
}

impl<S, W, B, MB> Service<ServiceRequest> for SelectiveService<S, W>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error>,
    W: Service<ServiceRequest, Response = ServiceResponse<MB>, Error = Error>,
    B: MessageBody,
    MB: MessageBody,
{
    type Response = ServiceResponse<EitherBody<B, MB>>;
    type Error = Error;
    type Future = SelectiveFuture<S::Future, W::Future>;

    // The wrapped service is ready only when the inner one is.
    forward_ready!(wrapped);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        if (self.applies)(&request) {
            SelectiveFuture::Wrapped {
                response: self.wrapped.call(request),
            }
        } else {
            SelectiveFuture::Direct {
                response: self.direct.call(request),
                header: self.otherwise.clone(),
            }
        }
    }
}

pin_project! {
    /// The response of a [`SelectiveService`], from whichever path the request took.
    #[project = SelectiveProjection]
    pub enum SelectiveFuture<D, W> {
        Direct { #[pin] response: D, header: Option<(HeaderName, HeaderValue)> },
        Wrapped { #[pin] response: W },
    }
}

impl<D, W, B, MB> Future for SelectiveFuture<D, W>
where
    D: Future<Output = Result<ServiceResponse<B>, Error>>,
    W: Future<Output = Result<ServiceResponse<MB>, Error>>,
    B: MessageBody,
    MB: MessageBody,
{
    type Output = Result<ServiceResponse<EitherBody<B, MB>>, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(match self.project() {
            SelectiveProjection::Direct { response, header } => {
                ready!(response.poll(cx)).map(|mut response| {
                    if let Some((name, value)) = header.take()
                        && !response.headers().contains_key(&name)
                    {
                        response.headers_mut().insert(name, value);
                    }
                    response.map_into_left_body()
                })
            }
            SelectiveProjection::Wrapped { response } => {
                ready!(response.poll(cx)).map(ServiceResponse::map_into_right_body)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use actix_web::http::header;
    use actix_web::middleware::DefaultHeaders;
    use actix_web::{App, HttpResponse, test, web};

    use super::*;

    fn has_origin(request: &ServiceRequest) -> bool {
        request.headers().contains_key(header::ORIGIN)
    }

    #[actix_web::test]
    async fn only_the_accepted_requests_go_through_the_middleware() {
        let app = test::init_service(
            App::new()
                .wrap(
                    Selective::new(
                        DefaultHeaders::new().add(("x-middleware", "ran")),
                        has_origin,
                    )
                    .otherwise_header(
                        HeaderName::from_static("x-skipped"),
                        HeaderValue::from_static("yes"),
                    ),
                )
                .route("/", web::get().to(HttpResponse::Ok))
                .route(
                    "/own",
                    web::get().to(|| async {
                        HttpResponse::Ok()
                            .insert_header(("x-skipped", "its own"))
                            .finish()
                    }),
                ),
        )
        .await;

        let through = test::call_service(
            &app,
            test::TestRequest::get()
                .uri("/")
                .insert_header((header::ORIGIN, "https://example.com"))
                .to_request(),
        )
        .await;
        assert_eq!(through.headers().get("x-middleware").unwrap(), "ran");
        assert!(!through.headers().contains_key("x-skipped"));

        let skipped =
            test::call_service(&app, test::TestRequest::get().uri("/").to_request()).await;
        assert!(!skipped.headers().contains_key("x-middleware"));
        assert_eq!(skipped.headers().get("x-skipped").unwrap(), "yes");
        assert_eq!(skipped.status(), 200);

        // A header the service set itself is kept.
        let own = test::call_service(&app, test::TestRequest::get().uri("/own").to_request()).await;
        assert_eq!(own.headers().get("x-skipped").unwrap(), "its own");
    }
}
