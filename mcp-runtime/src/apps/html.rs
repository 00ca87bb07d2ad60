//! [`Html`]: the body of a view, embedded or read from disk.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use crate::content::ResourceContents;
use crate::resources::output::{IntoResourceContents, text_contents};

/// An HTML document, the body a view resource returns; text as any other.
///
/// A `#[resource]` may return it as it returns a `String` or a
/// `&'static str`. The macro `mcp_runtime::view_file!("page.html")` gives
/// one from a file beside the source.
///
/// ```
/// use mcp_runtime::apps::Html;
///
/// let page = Html::new("<!doctype html><p>Hello</p>");
/// assert_eq!(page.as_str(), "<!doctype html><p>Hello</p>");
/// let built = Html::from(format!("<p>{}</p>", 21));
/// assert_eq!(&*built, "<p>21</p>");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Html(Cow<'static, str>);

impl Html {
    /// HTML text, borrowed for `'static` or owned.
    pub fn new(text: impl Into<Cow<'static, str>>) -> Self {
        Html(text.into())
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, owned.
    pub fn into_string(self) -> String {
        self.0.into_owned()
    }
}

impl From<&'static str> for Html {
    fn from(text: &'static str) -> Self {
        Html(Cow::Borrowed(text))
    }
}

impl From<String> for Html {
    fn from(text: String) -> Self {
        Html(Cow::Owned(text))
    }
}

impl From<Cow<'static, str>> for Html {
    fn from(text: Cow<'static, str>) -> Self {
        Html(text)
    }
}

impl Deref for Html {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Html {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Html {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl IntoResourceContents for Html {
    fn default_mime_type() -> Option<&'static str> {
        Some("text/html")
    }
    fn into_contents(self, uri: &str, mime_type: Option<&'static str>) -> Vec<ResourceContents> {
        text_contents(uri, mime_type.or(Some("text/html")), self.into_string())
    }
}

/// What `view_file!` expands to: in a debug build, the file at `path` as it
/// is now on disk (so a reload in the browser shows an edit without a
/// rebuild), or `embedded` with a warning when it cannot be read; in a
/// release build, `embedded` (the file as it was at compile time). Not
/// public API.
#[doc(hidden)]
pub fn __view_file(embedded: &'static str, path: &'static str) -> Html {
    if cfg!(debug_assertions) {
        read_or_embedded(embedded, path)
    } else {
        let _ = path;
        Html::from(embedded)
    }
}

fn read_or_embedded(embedded: &'static str, path: &str) -> Html {
    match std::fs::read_to_string(path) {
        Ok(text) => Html::from(text),
        Err(error) => {
            tracing::warn!(
                %path,
                %error,
                "the view's file could not be read; serving the copy embedded at compile time"
            );
            Html::from(embedded)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_file_is_read_from_disk_in_debug_builds_and_falls_back_to_the_embedded_text() {
        let dir = std::env::temp_dir().join(format!("mcp-view-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("view.html");
        std::fs::write(&path, "<p>edited</p>").unwrap();
        let path: &'static str = Box::leak(path.to_str().unwrap().to_owned().into_boxed_str());

        let read = __view_file("<p>embedded</p>", path);
        if cfg!(debug_assertions) {
            assert_eq!(read.as_str(), "<p>edited</p>");
            std::fs::write(path, "<p>edited again</p>").unwrap();
            assert_eq!(
                __view_file("<p>embedded</p>", path).as_str(),
                "<p>edited again</p>"
            );
        } else {
            assert_eq!(read.as_str(), "<p>embedded</p>");
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            __view_file("<p>embedded</p>", path).as_str(),
            "<p>embedded</p>"
        );
        assert_eq!(
            read_or_embedded("<p>embedded</p>", path).as_str(),
            "<p>embedded</p>"
        );
    }

    #[test]
    fn html_is_text_contents() {
        let contents = Html::from("<p>x</p>").into_contents("ui://a/b", None);
        assert_eq!(contents[0].mime_type(), Some("text/html"));
        let contents =
            Html::from("<p>x</p>").into_contents("ui://a/b", Some(crate::apps::MIME_TYPE));
        assert_eq!(contents[0].mime_type(), Some(crate::apps::MIME_TYPE));
    }
}
