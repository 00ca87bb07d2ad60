//! Resources and resource templates defined at run time, for proxies and
//! plugin hosts.

use std::future::Future;
use std::sync::Arc;

use crate::apps::ViewMeta;
use crate::completion::complete::{Completer, DynCompleters, Param};
use crate::completion::def::Arguments;
use crate::content::ResourceContents;
use crate::context::Context;
use crate::location::Location;
use crate::meta::{Icon, Metadata};
use crate::registry::error::RegistryError;
use crate::resources::build::{DynReader, Reader, Resource, SubscribeHook, as_view};
use crate::resources::def::{ReadError, ReadRequest};
use crate::resources::template::UriTemplate;

/// A resource (or, when its URI has `{variables}`, a resource template)
/// defined at run time: a URI, a name and an async closure that reads it.
/// Add it with [`Server::resource`](crate::Server::resource).
///
/// The closure receives the URI asked for and, for a template, its
/// variables (percent-decoded) as [`Arguments`].
///
/// ```
/// use mcp_runtime::{DynamicResource, ResourceContents, Server};
///
/// let motd = DynamicResource::new("motd://today", "motd", |uri, _vars, _ctx| async move {
///     let text = "Hello!".to_owned();
///     Ok(vec![ResourceContents::text(uri, text)])
/// })
/// .mime_type("text/plain");
/// let server = Server::new("host", "1.0.0").resource(motd);
/// # let _ = server;
/// ```
pub struct DynamicResource {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Option<serde_json::Value>,
    pub(crate) scopes: Vec<String>,
    /// `.view(..)`: it is a view of MCP Apps.
    pub(crate) view: Option<ViewMeta>,
    pub(crate) reader: DynReader,
    pub(crate) completers: DynCompleters,
    pub(crate) on_subscribe: Option<SubscribeHook>,
    pub(crate) location: Location,
}

impl DynamicResource {
    /// A resource at `uri` (a template when it has `{name}` or `{+name}`
    /// expressions), read by `read`.
    #[track_caller]
    pub fn new<F, Fut>(uri: impl Into<String>, name: impl Into<String>, read: F) -> Self
    where
        F: Fn(String, Arguments, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ReadError>> + Send + 'static,
    {
        let reader: DynReader = Arc::new(move |request: ReadRequest, ctx| {
            let vars = request.vars.into_iter().collect();
            Box::pin(read(request.uri, vars, ctx))
        });
        DynamicResource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: Vec::new(),
            meta: None,
            scopes: Vec::new(),
            view: None,
            reader,
            completers: DynCompleters::default(),
            on_subscribe: None,
            location: Location::caller(),
        }
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type listed for it.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Adds an icon (shown to 2025-11-25 clients).
    pub fn icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// Sets its `_meta` (shown to 2025-06-18 clients and later): a JSON
    /// object, or the server refuses to start.
    pub fn meta(mut self, meta: serde_json::Value) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Sets the OAuth scopes a caller's token must carry to read it (each
    /// an RFC 6749 scope token: printable ASCII without spaces, `"` or `\`;
    /// none twice, or the server refuses to start). Not shown to clients;
    /// HTTP authorization refuses a read whose token lacks one of them.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Makes it a view of MCP Apps (see [`apps`](crate::apps)): served as
    /// [`apps::MIME_TYPE`](crate::apps::MIME_TYPE), with `view` as `_meta.ui`
    /// on its `resources/list` entry and on the items each read gives (the
    /// `_meta` of an item that has its own `ui` is left as it is). Its URI
    /// must start with `ui://` and have no variables, its MIME type must be
    /// left unset, and each origin in `view` must be one, or the server
    /// refuses to start.
    ///
    /// ```
    /// use mcp_runtime::apps::{Html, ViewMeta};
    /// use mcp_runtime::{DynamicResource, ResourceContents};
    ///
    /// let chart = DynamicResource::new("ui://weather/chart", "chart", |uri, _, _| async move {
    ///     let page = Html::from("<!doctype html><p>21 °C</p>");
    ///     Ok(vec![ResourceContents::text(uri, page.into_string())])
    /// })
    /// .view(ViewMeta::new().connect_domains(["https://api.example.com"]));
    /// # let _ = chart;
    /// ```
    pub fn view(mut self, view: ViewMeta) -> Self {
        self.view = Some(view);
        self
    }

    /// Completes the template variable `variable` with `complete`, called
    /// with what was typed and the other variables already given.
    pub fn complete<F, Fut>(mut self, variable: impl Into<String>, complete: F) -> Self
    where
        F: Fn(String, Arguments) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.completers.add(variable.into(), complete);
        self
    }

    pub(crate) fn build(&self) -> Result<Resource, RegistryError> {
        let invalid = |reason: String| RegistryError::InvalidResource {
            uri: self.uri.clone(),
            location: self.location,
            reason,
        };
        let template = UriTemplate::parse(&self.uri).map_err(|e| invalid(e.to_string()))?;
        let mut params: Vec<Param> = template
            .variables()
            .map(|name| Param {
                name: name.to_owned(),
                description: None,
                required: true,
                completer: Completer::None,
            })
            .collect();
        self.completers.attach(&mut params).map_err(|variable| {
            invalid(format!(
                "`complete` names the variable `{variable}`, which the URI does not have"
            ))
        })?;
        let mut metadata = Metadata::from_dynamic(&self.icons, self.meta.as_ref(), &self.scopes)
            .map_err(invalid)?;
        let (mime_type, view) = as_view(
            &self.uri,
            self.mime_type.as_deref(),
            self.view.as_ref(),
            &mut metadata,
        )
        .map_err(invalid)?;
        Ok(Resource {
            uri: Arc::from(self.uri.as_str()),
            name: Arc::from(self.name.as_str()),
            title: self.title.clone(),
            description: self.description.clone(),
            mime_type: mime_type.map(str::to_owned),
            metadata,
            view,
            template: template.is_template().then_some(template),
            params,
            reader: Reader::Dynamic(Arc::clone(&self.reader)),
            on_subscribe: self.on_subscribe.clone(),
            location: self.location,
        })
    }
}
