//! A served resource or resource template, built from what `#[resource]`
//! submitted or from a [`DynamicResource`](crate::DynamicResource), and how
//! one is read.

use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::apps::link;
use crate::apps::{MIME_TYPE, ViewMeta};
use crate::completion::complete::Param;
use crate::content::ResourceContents;
use crate::context::{Context, StateMap};
use crate::location::Location;
use crate::meta::Metadata;
use crate::registry::catalog::Keyed;
use crate::registry::error::{Primitive, RegistryError, check_state};
use crate::resources::def::{ReadError, ReadRequest, ResourceDef};
use crate::resources::template::UriTemplate;
use crate::tools::def::BoxFuture;

/// A view's `_meta.ui`, shared by its reads.
pub(crate) type ViewUi = Arc<Map<String, Value>>;

/// What reading a resource gives: its contents, or why there are none.
pub(crate) type ReadResult = Result<Vec<ResourceContents>, ReadError>;

/// Reads a resource defined at run time.
pub(crate) type DynReader =
    Arc<dyn Fn(ReadRequest, Context) -> BoxFuture<ReadResult> + Send + Sync>;

/// Told when a client subscribes to (`true`) or unsubscribes from
/// (`false`) a URI the resource serves: a mounted upstream's resources pass
/// subscriptions on.
pub(crate) type SubscribeHook = Arc<dyn Fn(&str, bool) + Send + Sync>;

#[derive(Clone)]
pub(crate) enum Reader {
    Static(fn(ReadRequest, Context) -> BoxFuture<ReadResult>),
    Dynamic(DynReader),
}

/// A resource (a fixed URI) or a resource template (a URI with
/// variables), as served.
#[derive(Clone)]
pub struct Resource {
    /// The URI, or the template's text.
    pub(crate) uri: Arc<str>,
    pub(crate) name: Arc<str>,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) metadata: Metadata,
    /// A view's `_meta.ui` (MCP Apps), added to the items of each read.
    pub(crate) view: Option<ViewUi>,
    /// Set for a template.
    pub(crate) template: Option<UriTemplate>,
    /// One per template variable.
    pub(crate) params: Vec<Param>,
    pub(crate) reader: Reader,
    pub(crate) on_subscribe: Option<SubscribeHook>,
    pub(crate) location: Location,
}

impl Resource {
    /// The URI, or for a template its URI template.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The human-readable title, if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The MIME type listed for it, if known.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// Whether it is a template (its URI has variables).
    pub fn is_template(&self) -> bool {
        self.template.is_some()
    }

    /// The OAuth scopes a caller's token must carry to read it (`scopes =
    /// [..]` on the attribute, or `.scopes(..)`); empty if none. Not shown to
    /// clients in `resources/list` or `resources/templates/list`; HTTP authorization refuses a `resources/read` whose token
    /// lacks one of them.
    pub fn scopes(&self) -> &[String] {
        &self.metadata.scopes
    }

    /// Where it was defined.
    pub fn location(&self) -> Location {
        self.location
    }

    /// The template variable with this name.
    pub(crate) fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Whether it is a view of MCP Apps (`view` on the attribute, or
    /// [`DynamicResource::view`](crate::DynamicResource::view)): served as
    /// [`apps::MIME_TYPE`](crate::apps::MIME_TYPE) with `_meta.ui`.
    pub fn is_view(&self) -> bool {
        self.view.is_some()
    }

    /// Reads it for `uri`, with the template's variables bound in `vars`;
    /// a view's items get its MIME type and `_meta.ui`.
    pub(crate) fn read(&self, request: ReadRequest, ctx: Context) -> BoxFuture<ReadResult> {
        let Some(ui) = &self.view else {
            return self.read_raw(request, ctx);
        };
        let (ui, uri) = (Arc::clone(ui), self.uri.clone());
        let read = self.read_raw(request, ctx);
        Box::pin(async move { read.await.map(|contents| link::dress(contents, &uri, &ui)) })
    }

    fn read_raw(&self, request: ReadRequest, ctx: Context) -> BoxFuture<ReadResult> {
        match &self.reader {
            Reader::Static(read) => read(request, ctx),
            Reader::Dynamic(read) => read(request, ctx),
        }
    }
}

impl Keyed for Resource {
    fn key(&self) -> &str {
        &self.uri
    }

    fn location(&self) -> Location {
        self.location
    }
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Builds the served resource of a `#[resource]` function.
pub(crate) fn build_static(
    def: &'static ResourceDef,
    state: &StateMap,
) -> Result<Resource, RegistryError> {
    let invalid = |reason: String| RegistryError::InvalidResource {
        uri: def.uri.to_owned(),
        location: def.location,
        reason,
    };
    check_state(
        def.requirements,
        state,
        Primitive::Resource,
        def.uri,
        def.location,
    )?;
    let template = UriTemplate::parse(def.uri).map_err(|e| invalid(e.to_string()))?;
    let mut metadata =
        Metadata::from_attribute(def.icons, def.meta, def.scopes).map_err(invalid)?;
    let view = def.view.as_ref().map(ViewMeta::from);
    let (mime_type, view) =
        as_view(def.uri, def.mime_type, view.as_ref(), &mut metadata).map_err(invalid)?;
    Ok(Resource {
        uri: Arc::from(def.uri),
        name: Arc::from(def.name),
        title: def.title.map(str::to_owned),
        description: def.description.map(str::to_owned),
        mime_type: mime_type.or_else(def.default_mime_type).map(str::to_owned),
        metadata,
        view,
        template: template.is_template().then_some(template),
        params: def.params.iter().map(Param::from_def).collect(),
        reader: Reader::Static(def.read),
        on_subscribe: None,
        location: def.location,
    })
}

/// For a view (`view` is set): the view MIME type (refusing another one
/// given for it) and its `_meta.ui`, added to `metadata`; otherwise
/// `mime_type` as it is. The error continues "the resource .. cannot be
/// served: ".
pub(crate) fn as_view<'a>(
    uri: &str,
    mime_type: Option<&'a str>,
    view: Option<&ViewMeta>,
    metadata: &mut Metadata,
) -> Result<(Option<&'a str>, Option<ViewUi>), String> {
    let Some(view) = view else {
        return Ok((mime_type, None));
    };
    if let Some(given) = mime_type.filter(|given| !link::is_view_type(given)) {
        return Err(format!(
            "it is a view, served as {MIME_TYPE:?}, but its MIME type is given as {given:?}; \
             leave the MIME type out"
        ));
    }
    let (meta, ui) = link::view_meta(metadata.meta.take(), uri, view)?;
    metadata.meta = Some(meta);
    Ok((Some(MIME_TYPE), Some(Arc::new(ui))))
}
