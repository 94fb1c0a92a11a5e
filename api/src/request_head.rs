//! The limit on a request's head, its request line and header fields together, as common
//! servers set one (Node 16 KiB, nginx 8 KiB a line): `server.max_header_bytes`, 431 beyond.
//!
//! actix-http has no setting for it. Its HTTP/1 decoder buffers up to 128 KiB of a head that is
//! not complete yet and accepts up to 96 header fields; past either it answers 431 itself, with
//! an empty body, and closes the connection. Everything under that is parsed and handed on, so
//! the service's own, smaller limit is checked here, on the parsed head, before routing.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Uri;
use actix_web::middleware::Next;
use actix_web::{HttpRequest, ResponseError, web};

use crate::problem::ApiError;
use crate::state::Limits;

/// The request head's size as it is sent in HTTP/1.1's canonical form: the request line
/// (`METHOD target HTTP/1.1` CRLF), each field as `name: value` CRLF, and the blank line.
/// (A field sent as `name:value`, without the space, counts one byte more than it took.)
pub fn head_bytes(request: &HttpRequest) -> usize {
    const CRLF: usize = 2;
    const VERSION: usize = "HTTP/1.1".len();
    let request_line = request.method().as_str().len() + 1 + target_bytes(request.uri()) + 1;
    let fields: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + ": ".len() + value.len() + CRLF)
        .sum();
    request_line + VERSION + CRLF + fields + CRLF
}

/// The request target's length: origin form (`/path?query`), or absolute form
/// (`http://host/path?query`) when the request was sent that way.
fn target_bytes(uri: &Uri) -> usize {
    let scheme = uri
        .scheme_str()
        .map_or(0, |scheme| scheme.len() + "://".len());
    let authority = uri
        .authority()
        .map_or(0, |authority| authority.as_str().len());
    let path_and_query = uri.path_and_query().map_or(0, |path| path.as_str().len());
    scheme + authority + path_and_query
}

/// Middleware: a request whose head is over `server.max_header_bytes` is answered 431 with a
/// problem (and the connection closed) before it reaches a route.
pub async fn limit_request_head<B: MessageBody + 'static>(
    limits: web::Data<Limits>,
    request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let limit = limits.max_header_bytes;
    if head_bytes(request.request()) > limit {
        let response = ApiError::HeaderFieldsTooLarge { limit }.error_response();
        return Ok(request.into_response(response).map_into_right_body());
    }
    next.call(request)
        .await
        .map(ServiceResponse::map_into_left_body)
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    #[test]
    fn counts_the_head_as_sent_in_canonical_form() {
        let request = TestRequest::get()
            .uri("/health/live?x=1")
            .insert_header(("host", "127.0.0.1"))
            .insert_header(("x-padding", "abc"))
            .to_http_request();
        let wire = "GET /health/live?x=1 HTTP/1.1\r\nhost: 127.0.0.1\r\nx-padding: abc\r\n\r\n";
        assert_eq!(head_bytes(&request), wire.len());
    }

    #[test]
    fn counts_an_absolute_target_whole() {
        let request = TestRequest::get()
            .uri("http://127.0.0.1:8080/clients")
            .to_http_request();
        let wire = "GET http://127.0.0.1:8080/clients HTTP/1.1\r\n\r\n";
        assert_eq!(head_bytes(&request), wire.len());
    }

    #[test]
    fn counts_every_value_of_a_repeated_field() {
        let request = TestRequest::get()
            .uri("/")
            .append_header(("cookie", "a=1"))
            .append_header(("cookie", "b=2"))
            .to_http_request();
        let wire = "GET / HTTP/1.1\r\ncookie: a=1\r\ncookie: b=2\r\n\r\n";
        assert_eq!(head_bytes(&request), wire.len());
    }
}
