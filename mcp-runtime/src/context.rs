//! Values the runtime injects into tools: [`Context`] and [`State<T>`].

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::output::{CallToolResult, RawOutput};

/// Shared values registered with [`Server::state`](crate::Server::state), by type.
#[derive(Clone, Default)]
pub(crate) struct StateMap {
    values: HashMap<TypeId, (Arc<dyn Any + Send + Sync>, &'static str)>,
}

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.values
            .insert(TypeId::of::<T>(), (value, std::any::type_name::<T>()));
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let (value, _) = self.values.get(&TypeId::of::<T>())?;
        Arc::clone(value).downcast::<T>().ok()
    }

    pub(crate) fn contains(&self, type_id: TypeId) -> bool {
        self.values.contains_key(&type_id)
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.values.values().map(|(_, name)| name))
            .finish()
    }
}

/// Information about the call in progress, injected into any tool that takes
/// a parameter of this type. It is not part of the tool's input schema.
///
/// ```
/// use mcp_runtime::{tool, Context};
///
/// /// Says which tool is running.
/// #[tool]
/// async fn whoami(ctx: Context) -> String {
///     ctx.tool_name().to_owned()
/// }
/// ```
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

struct ContextInner {
    tool_name: String,
    state: Arc<StateMap>,
}

impl Context {
    pub(crate) fn new(tool_name: &str, state: Arc<StateMap>) -> Self {
        Context {
            inner: Arc::new(ContextInner {
                tool_name: tool_name.to_owned(),
                state,
            }),
        }
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &str {
        &self.inner.tool_name
    }

    /// The shared value of type `T` registered with
    /// [`Server::state`](crate::Server::state), if any.
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        self.inner.state.get::<T>().map(State)
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("tool_name", &self.inner.tool_name)
            .finish_non_exhaustive()
    }
}

/// Shared state of type `T`, registered once with
/// [`Server::state`](crate::Server::state) and injected into every tool that
/// takes a `State<T>` parameter. A tool asking for a type that was never
/// registered is reported when the server starts, not when it is called.
///
/// ```
/// use mcp_runtime::{tool, State};
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// #[derive(Default)]
/// struct Counter(AtomicU64);
///
/// /// Counts calls.
/// #[tool]
/// async fn count(counter: State<Counter>) -> String {
///     (counter.0.fetch_add(1, Ordering::Relaxed) + 1).to_string()
/// }
/// ```
pub struct State<T: ?Sized>(Arc<T>);

impl<T: ?Sized> State<T> {
    /// Wraps a shared value.
    pub fn new(value: Arc<T>) -> Self {
        State(value)
    }

    /// The shared `Arc`.
    pub fn into_inner(self) -> Arc<T> {
        self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// A state type a tool needs: checked against the registered state at start-up.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Requirement {
    pub type_id: TypeId,
    pub type_name: &'static str,
}

/// Parameter types the runtime provides instead of the client.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a #[tool]",
    label = "parameters whose type is named `Context` or `State<...>` are injected by the runtime",
    note = "use `mcp_runtime::Context` or `mcp_runtime::State<T>`, or rename your type so it becomes a normal argument"
)]
pub trait Inject: Sized {
    fn requirement() -> Option<Requirement>;
    fn inject(ctx: &Context) -> Result<Self, RawOutput>;
}

impl Inject for Context {
    fn requirement() -> Option<Requirement> {
        None
    }
    fn inject(ctx: &Context) -> Result<Self, RawOutput> {
        Ok(ctx.clone())
    }
}

impl<T: Send + Sync + 'static> Inject for State<T> {
    fn requirement() -> Option<Requirement> {
        Some(Requirement {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
        })
    }
    fn inject(ctx: &Context) -> Result<Self, RawOutput> {
        // Checked at start-up, so this only fails for a registry used
        // without the server's state; say so rather than panic.
        ctx.state::<T>().ok_or_else(|| {
            tracing::error!(
                state = std::any::type_name::<T>(),
                "tool needs state that was not registered"
            );
            RawOutput::Done(CallToolResult::error(
                "internal error: the server is misconfigured",
            ))
        })
    }
}
