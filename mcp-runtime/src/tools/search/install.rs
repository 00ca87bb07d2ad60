//! Progressive discovery put into a registry: the synthetic tools added
//! (their names refused when taken), and what the registry answers about
//! the listed view and the proxy.

use std::sync::{Arc, OnceLock};

use super::{Discovery, ToolSearch, synthetic};
use crate::location::Location;
use crate::registry::CallError;
use crate::registry::Registry;
use crate::registry::catalog::insert_unique;
use crate::registry::error::{Primitive, RegistryError};
use crate::tools::build::build_dynamic;
use crate::tools::def::Tool;
use crate::tools::output::CallToolResult;

impl ToolSearch {
    /// `registry` with the synthetic tools added (defined at `location`)
    /// and the listed view on; refused when a served tool has a synthetic
    /// tool's name.
    pub(crate) fn install(
        &self,
        mut registry: Registry,
        location: Location,
    ) -> Result<Registry, RegistryError> {
        let discovery = Arc::new(Discovery {
            pins: self.pins.clone(),
            pin_tags: self.pin_tags.clone(),
            threshold: self.threshold,
            search_name: self.name.clone(),
            proxy_name: self.call_proxy.then(|| self.proxy_name.clone()),
            max_results: self.max_results,
            serving: OnceLock::new(),
        });
        let mut synthetic = vec![synthetic::search_tool(&discovery, location)];
        if self.call_proxy {
            synthetic.push(synthetic::proxy_tool(&discovery, location));
        }
        for tool in synthetic {
            let tool = Arc::new(build_dynamic(&tool)?);
            insert_unique(registry.tools_mut(), tool)
                .map_err(|d| RegistryError::duplicate(Primitive::Tool, d))?;
        }
        for pin in &self.pins {
            if registry.get(pin).is_none() {
                tracing::warn!(
                    tool = %pin,
                    "ToolSearch::pin names no tool served now; it is listed if one is added"
                );
            }
        }
        registry.discovery = Some(discovery);
        Ok(registry)
    }
}

impl Registry {
    /// The tools a client's `tools/list` shows: every tool, or with
    /// [`Server::tool_search`](crate::Server::tool_search) the listed view
    /// (pinned tools and the synthetic ones), sorted by name.
    pub fn listed(&self) -> Vec<Arc<Tool>> {
        match &self.discovery {
            Some(discovery) => discovery.listed(self.tools()),
            None => self.tools().to_vec(),
        }
    }

    /// For [`Registry::call`]: the answer of a synthetic tool, from this
    /// registry (no server is serving it); `None` for any other tool.
    pub(crate) async fn call_synthetic(
        &self,
        tool: &Tool,
        arguments: &serde_json::Value,
        ctx: &crate::context::Context,
    ) -> Option<Result<CallToolResult, CallError>> {
        let discovery = self.discovery.as_ref()?;
        if !discovery.is_synthetic(tool.name()) {
            return None;
        }
        if let Err(text) = tool.validator.validate(&tool.name, arguments) {
            return Some(Ok(CallToolResult::error(text)));
        }
        if tool.name() == discovery.search_name {
            let index = discovery.index(self.tools());
            return Some(Ok(synthetic::answer(discovery, &index, arguments, ctx)));
        }
        // The proxy: the tool it names, as `Registry::call` calls it.
        let name = arguments["name"].as_str().unwrap_or_default();
        if let Some(refusal) = synthetic::refusal(discovery, name, self) {
            return Some(Ok(refusal));
        }
        let inner = arguments.get("arguments").cloned().unwrap_or_default();
        Some(Box::pin(self.call(name, inner)).await)
    }

    /// For a call of the discovery proxy, the name of the tool it calls
    /// (`arguments.name`); `None` for any other call.
    pub(crate) fn proxied<'a>(
        &self,
        name: &str,
        arguments: Option<&'a serde_json::Value>,
    ) -> Option<&'a str> {
        let discovery = self.discovery.as_ref()?;
        if discovery.proxy_name() != Some(name) {
            return None;
        }
        arguments?.get("name")?.as_str()
    }

    /// The tool a `tools/call` of `name` with `arguments` runs: the
    /// proxy's target for the discovery proxy, else the tool `name`.
    pub(crate) fn called(
        &self,
        name: &str,
        arguments: Option<&serde_json::Value>,
    ) -> Option<&Arc<Tool>> {
        self.get(self.proxied(name, arguments).unwrap_or(name))
    }
}
