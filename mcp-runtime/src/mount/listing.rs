//! What an upstream serves, listed, and as entries of ours: built, keyed
//! by the name or URI they have here, and compared with what was mounted
//! before to know what to remove and add when a list changes.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::client::{Client, ClientError};
use crate::location::Location;
use crate::mount::entries;
use crate::mount::link::Link;
use crate::prompts::dynamic::DynamicPrompt;
use crate::registry::change::{Change, List};
use crate::resources::dynamic::DynamicResource;
use crate::resources::template::UriTemplate;
use crate::tools::build::build_dynamic;
use crate::tools::dynamic::DynamicTool;

/// One list's entries, by their key here (tool or prompt name, URI or URI
/// template), each with the JSON the upstream listed it with.
pub(crate) type Keyed<T> = BTreeMap<String, (Value, T)>;

/// What an upstream serves, as entries of ours.
#[derive(Default)]
pub(crate) struct Entries {
    pub(crate) tools: Keyed<DynamicTool>,
    /// Resources and resource templates (their keys cannot meet: a
    /// template has `{`).
    pub(crate) resources: Keyed<DynamicResource>,
    pub(crate) prompts: Keyed<DynamicPrompt>,
}

/// Lists `list` of the upstream (all of it for `None`) and makes entries
/// of what it lists; what cannot be served here is left out, with a
/// warning.
pub(crate) async fn fetch(
    link: &Arc<Link>,
    client: &Client,
    list: Option<List>,
    location: Location,
) -> Result<Entries, ClientError> {
    let capabilities = client.capabilities();
    let wants = |which: List| list.is_none_or(|l| l == which);
    let completes = capabilities.completions();
    let mut entries = Entries::default();
    if wants(List::Tools) && capabilities.tools() {
        for info in client.list_tools().await? {
            let tool = entries::tool(link, &info, location);
            keep(
                link,
                &mut entries.tools,
                &tool.name.clone(),
                info.into_json(),
                tool,
                |t| build_dynamic(t).map(drop),
            );
        }
    }
    if wants(List::Resources) && capabilities.resources() {
        for info in client.list_resources().await? {
            let resource = entries::resource(link, &info, location);
            let key = info.uri().to_owned();
            keep(
                link,
                &mut entries.resources,
                &key,
                info.into_json(),
                resource,
                |r| r.build().map(drop),
            );
        }
        for info in client.list_resource_templates().await? {
            let key = info.uri_template().to_owned();
            let variables: Vec<String> = match UriTemplate::parse(&key) {
                Ok(template) => template.variables().map(str::to_owned).collect(),
                Err(error) => {
                    skip(link, "resource template", &key, &error.to_string());
                    continue;
                }
            };
            let resource = entries::template(link, &info, &variables, completes, location);
            keep(
                link,
                &mut entries.resources,
                &key,
                info.into_json(),
                resource,
                |r| r.build().map(drop),
            );
        }
    }
    if wants(List::Prompts) && capabilities.prompts() {
        for info in client.list_prompts().await? {
            let prompt = entries::prompt(link, &info, completes, location);
            keep(
                link,
                &mut entries.prompts,
                &prompt.name.clone(),
                info.into_json(),
                prompt,
                |p| p.build().map(drop),
            );
        }
    }
    Ok(entries)
}

/// Keeps `entry` under `key` if it can be served here.
fn keep<T>(
    link: &Link,
    into: &mut Keyed<T>,
    key: &str,
    json: Value,
    entry: T,
    check: impl Fn(&T) -> Result<(), crate::registry::error::RegistryError>,
) {
    match check(&entry) {
        Ok(()) => {
            into.insert(key.to_owned(), (json, entry));
        }
        Err(error) => skip(link, "entry", key, &error.to_string()),
    }
}

fn skip(link: &Link, what: &str, key: &str, reason: &str) {
    tracing::warn!(
        upstream = link.label(),
        "the upstream's {what} `{key}` is not served: {reason}"
    );
}

/// The keys of one list, for the mount to remember.
pub(crate) fn keys<T>(list: &Keyed<T>) -> BTreeMap<String, Value> {
    list.iter()
        .map(|(key, (json, _))| (key.clone(), json.clone()))
        .collect()
}

/// What is mounted now, by key and listed JSON, to compare a new listing
/// with.
#[derive(Default)]
pub(crate) struct Mounted {
    pub(crate) tools: BTreeMap<String, Value>,
    pub(crate) resources: BTreeMap<String, Value>,
    pub(crate) prompts: BTreeMap<String, Value>,
}

impl Mounted {
    pub(crate) fn of(entries: &Entries) -> Mounted {
        Mounted {
            tools: keys(&entries.tools),
            resources: keys(&entries.resources),
            prompts: keys(&entries.prompts),
        }
    }

    /// The changes that turn what is mounted into `next` for the lists
    /// `next` was fetched for, and what is then mounted: entries that
    /// went or changed are removed, entries that came or changed added.
    pub(crate) fn changes(&mut self, next: Entries, list: Option<List>) -> Vec<Change> {
        let wants = |which: List| list.is_none_or(|l| l == which);
        let mut changes = Vec::new();
        if wants(List::Tools) {
            diff(
                &mut self.tools,
                next.tools,
                &mut changes,
                Change::RemoveTool,
                |tool| {
                    build_dynamic(&tool)
                        .ok()
                        .map(|t| Change::AddTool(Arc::new(t)))
                },
            );
        }
        if wants(List::Resources) {
            diff(
                &mut self.resources,
                next.resources,
                &mut changes,
                Change::RemoveResource,
                |r| r.build().ok().map(|r| Change::AddResource(Arc::new(r))),
            );
        }
        if wants(List::Prompts) {
            diff(
                &mut self.prompts,
                next.prompts,
                &mut changes,
                Change::RemovePrompt,
                |p| p.build().ok().map(|p| Change::AddPrompt(Arc::new(p))),
            );
        }
        changes
    }

    /// Forgets `key` of `list`: an addition that was refused.
    pub(crate) fn forget(&mut self, list: List, key: &str) {
        match list {
            List::Tools => self.tools.remove(key),
            List::Resources => self.resources.remove(key),
            List::Prompts => self.prompts.remove(key),
        };
    }

    /// The changes that remove everything mounted; then nothing is.
    pub(crate) fn removals(&mut self) -> Vec<Change> {
        let tools = std::mem::take(&mut self.tools)
            .into_keys()
            .map(Change::RemoveTool);
        let resources = std::mem::take(&mut self.resources)
            .into_keys()
            .map(Change::RemoveResource);
        let prompts = std::mem::take(&mut self.prompts)
            .into_keys()
            .map(Change::RemovePrompt);
        tools.chain(resources).chain(prompts).collect()
    }
}

fn diff<T>(
    mounted: &mut BTreeMap<String, Value>,
    next: Keyed<T>,
    changes: &mut Vec<Change>,
    remove: impl Fn(String) -> Change,
    add: impl Fn(T) -> Option<Change>,
) {
    let gone: Vec<String> = mounted
        .iter()
        .filter(|(key, json)| next.get(*key).is_none_or(|(now, _)| now != *json))
        .map(|(key, _)| key.clone())
        .collect();
    for key in gone {
        mounted.remove(&key);
        changes.push(remove(key));
    }
    for (key, (json, entry)) in next {
        if mounted.contains_key(&key) {
            continue;
        }
        if let Some(change) = add(entry) {
            mounted.insert(key, json);
            changes.push(change);
        }
    }
}
