//! The console's page: plain HTML, JavaScript and CSS embedded in the
//! binary (no CDN, works offline). The page routes with the URL fragment
//! (`#/`, `#/runs/<id>`, `#/review`) and reads everything from `/api/`.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The page.
pub const INDEX_HTML: &str = include_str!("assets/index.html");
/// Its script.
pub const APP_JS: &str = include_str!("assets/app.js");
/// Its styles.
pub const APP_CSS: &str = include_str!("assets/app.css");

fn with_type(body: &'static str, ty: &'static str) -> Response {
    let mut r = body.into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(ty));
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// `GET /`.
pub async fn index() -> Response {
    with_type(INDEX_HTML, "text/html; charset=utf-8")
}

/// `GET /assets/{file}`: only the embedded files; anything else is 404.
pub async fn asset(Path(file): Path<String>) -> Response {
    match file.as_str() {
        "app.js" => with_type(APP_JS, "text/javascript; charset=utf-8"),
        "app.css" => with_type(APP_CSS, "text/css; charset=utf-8"),
        _ => super::refuse(StatusCode::NOT_FOUND, "not_found", "no such asset"),
    }
}
