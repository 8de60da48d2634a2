//! The message processor: surfaces built from A2UI messages, in order, each message applied
//! whole or not at all, with a report of what it changed (so a renderer touches only that).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::catalog::{Catalog, BASIC_CATALOG_IDS};
use super::component::Component;
use super::error::{A2uiError, Category, DetailCode};
use super::limits::{measure, A2uiLimits};
use super::message::{parse_message, A2uiMessage};
use super::surface::{call_depth_message, component_bounds, Surface};
use super::topology::{self, Issue};

/// How the processor judges what it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessorOptions {
    /// Reject a message whose components break the catalog or the graph (the validator);
    /// otherwise keep them and report them through [`Surface::issues`] (the renderer).
    pub strict: bool,
    /// A surface naming an unknown catalog is rendered with the basic catalog (and a warning)
    /// instead of being refused.
    pub fallback_to_basic: bool,
    pub limits: A2uiLimits,
}

impl ProcessorOptions {
    /// The renderer's options: lenient, unknown catalogs read as the basic one.
    pub const RENDERER: ProcessorOptions = ProcessorOptions {
        strict: false,
        fallback_to_basic: true,
        limits: A2uiLimits::DEFAULT,
    };
    /// The validator's options: strict, unknown catalogs refused.
    pub const STRICT: ProcessorOptions = ProcessorOptions {
        strict: true,
        fallback_to_basic: false,
        limits: A2uiLimits::DEFAULT,
    };
}

impl Default for ProcessorOptions {
    fn default() -> Self {
        Self::RENDERER
    }
}

/// What one message changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    SurfaceCreated(String),
    SurfaceDeleted(String),
    /// The ids of the components that are new or differ from before.
    Components {
        surface: String,
        ids: Vec<String>,
    },
    /// The data model changed at `path` (`/` for all of it).
    DataModel {
        surface: String,
        path: String,
    },
}

/// The surfaces built so far and the catalogs they may use.
#[derive(Debug, Clone)]
pub struct Processor {
    catalogs: Vec<(String, Arc<Catalog>)>,
    surfaces: Vec<Surface>,
    pub options: ProcessorOptions,
}

impl Default for Processor {
    fn default() -> Self {
        Self::new(ProcessorOptions::default())
    }
}

impl Processor {
    /// A processor with the basic catalog registered under [`BASIC_CATALOG_IDS`].
    pub fn new(options: ProcessorOptions) -> Self {
        let basic = Arc::new(Catalog::Basic);
        let catalogs = BASIC_CATALOG_IDS
            .iter()
            .map(|id| (id.to_string(), basic.clone()))
            .collect();
        Processor {
            catalogs,
            surfaces: Vec::new(),
            options,
        }
    }

    /// A processor with exactly these catalogs.
    pub fn with_catalogs(options: ProcessorOptions, catalogs: Vec<(String, Arc<Catalog>)>) -> Self {
        Processor {
            catalogs,
            surfaces: Vec::new(),
            options,
        }
    }

    /// Registers (or replaces) a catalog under an id.
    pub fn register(&mut self, id: impl Into<String>, catalog: Arc<Catalog>) {
        let id = id.into();
        self.catalogs.retain(|(i, _)| *i != id);
        self.catalogs.push((id, catalog));
    }

    /// The surfaces, in the order they were created.
    pub fn surfaces(&self) -> &[Surface] {
        &self.surfaces
    }

    pub fn surface(&self, id: &str) -> Option<&Surface> {
        self.surfaces.iter().find(|s| s.id == id)
    }

    pub fn surface_mut(&mut self, id: &str) -> Option<&mut Surface> {
        self.surfaces.iter_mut().find(|s| s.id == id)
    }

    /// Applies a list of messages (an array, or `{messages: [...]}`) in order, stopping at the
    /// first that fails; the ones before it stay applied.
    pub fn process_all(&mut self, messages: &Value) -> Result<Vec<Change>, A2uiError> {
        let list = match messages {
            Value::Array(a) => a,
            Value::Object(o) => match o.get("messages") {
                Some(Value::Array(a)) => a,
                _ => return self.process(messages).map(|c| vec![c]),
            },
            _ => return Err(A2uiError::validation("messages must be a list")),
        };
        if list.len() > self.options.limits.max_operations {
            return Err(A2uiError::limit(format!(
                "{} messages, more than {}",
                list.len(),
                self.options.limits.max_operations
            )));
        }
        list.iter().map(|m| self.process(m)).collect()
    }

    /// Applies every message of a list, going on past the ones that fail (as a renderer
    /// does: one bad message must not hide the rest of a surface); returns the failures with
    /// their index. A list longer than `max_operations` is cut there, and that is a failure too.
    pub fn process_each(&mut self, messages: &[Value]) -> Vec<(usize, A2uiError)> {
        let max = self.options.limits.max_operations;
        let mut errors: Vec<(usize, A2uiError)> = messages
            .iter()
            .take(max)
            .enumerate()
            .filter_map(|(i, m)| self.process(m).err().map(|e| (i, e)))
            .collect();
        if messages.len() > max {
            errors.push((
                max,
                A2uiError::limit(format!(
                    "{} messages, more than {max}; the rest were ignored",
                    messages.len()
                )),
            ));
        }
        errors
    }

    /// Applies one message; on error nothing changed.
    pub fn process(&mut self, message: &Value) -> Result<Change, A2uiError> {
        let limits = self.options.limits;
        match parse_message(message, &limits)? {
            A2uiMessage::CreateSurface {
                surface_id,
                catalog_id,
                theme,
                send_data_model,
            } => self.create(
                surface_id,
                catalog_id,
                theme.unwrap_or_default(),
                send_data_model,
            ),
            A2uiMessage::UpdateComponents {
                surface_id,
                components,
            } => self.update_components(surface_id, components),
            A2uiMessage::UpdateDataModel {
                surface_id,
                path,
                value,
            } => {
                let surface = self.existing(&surface_id)?;
                let path = surface.write(path.as_deref(), value, &limits)?;
                Ok(Change::DataModel {
                    surface: surface_id,
                    path,
                })
            }
            A2uiMessage::DeleteSurface { surface_id } => {
                self.existing(&surface_id)?;
                self.surfaces.retain(|s| s.id != surface_id);
                Ok(Change::SurfaceDeleted(surface_id))
            }
        }
    }

    fn existing(&mut self, id: &str) -> Result<&mut Surface, A2uiError> {
        self.surface_mut(id).ok_or_else(|| {
            A2uiError::new(
                Category::Integrity,
                format!("Surface not found for message: {id}"),
            )
        })
    }

    fn create(
        &mut self,
        id: String,
        catalog_id: String,
        theme: Map<String, Value>,
        send_data_model: bool,
    ) -> Result<Change, A2uiError> {
        let limits = self.options.limits;
        if self.surface(&id).is_some() {
            return Err(A2uiError::new(
                Category::Integrity,
                format!("Surface {id} already exists"),
            ));
        }
        if self.surfaces.len() >= limits.max_surfaces {
            return Err(A2uiError::limit(format!(
                "more than {} surfaces",
                limits.max_surfaces
            )));
        }
        let mut warnings = Vec::new();
        let catalog = match self.catalogs.iter().find(|(i, _)| *i == catalog_id) {
            Some((_, c)) => c.clone(),
            None if self.options.fallback_to_basic => {
                warnings.push(format!(
                    "Catalog not found: {catalog_id} (shown with the basic catalog)"
                ));
                Arc::new(Catalog::Basic)
            }
            None => {
                return Err(A2uiError::new(
                    Category::Catalog,
                    format!("Catalog not found: {catalog_id}"),
                ))
            }
        };
        measure(&Value::Object(theme.clone()), &component_bounds(&limits))
            .map_err(|e| A2uiError::limit(format!("the theme: {}", e.message)))?;
        let details = catalog.validate_theme(&theme);
        if !details.is_empty() {
            let message = format!(
                "Validation failed for theme on surface '{id}': {}",
                details[0].message
            );
            if self.options.strict {
                return Err(A2uiError {
                    category: Category::Validation,
                    message,
                    details,
                }
                .under("createSurface.theme"));
            }
            warnings.push(message);
        }
        self.surfaces.push(Surface {
            id: id.clone(),
            catalog_id,
            catalog,
            theme,
            send_data_model,
            components: BTreeMap::new(),
            data_model: Value::Object(Map::new()),
            warnings,
        });
        Ok(Change::SurfaceCreated(id))
    }

    fn update_components(
        &mut self,
        surface_id: String,
        components: Vec<Map<String, Value>>,
    ) -> Result<Change, A2uiError> {
        let ProcessorOptions { strict, limits, .. } = self.options;
        let surface = self.existing(&surface_id)?;
        let mut next = surface.components.clone();
        let mut seen = BTreeSet::new();
        let mut warnings = Vec::new();
        for (i, obj) in components.into_iter().enumerate() {
            let at = format!("updateComponents.components.{i}");
            let id = obj
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            measure(&Value::Object(obj.clone()), &component_bounds(&limits))
                .map_err(|e| A2uiError::limit(format!("component '{id}': {}", e.message)))?;
            if !seen.insert(id.clone()) {
                let message = format!("Duplicate component id '{id}' in one updateComponents");
                if strict {
                    return Err(A2uiError::field(
                        format!("{at}.id"),
                        DetailCode::InvalidValue,
                        message,
                    ));
                }
                warnings.push(message);
            }
            let old = next.get(&id);
            let component = match (obj.get("component").and_then(Value::as_str), old) {
                (Some(kind), _) => Component {
                    id: id.clone(),
                    kind: kind.to_string(),
                    value: obj,
                },
                // An update without a type changes the properties of the component there.
                (None, Some(old)) => {
                    let mut value = old.value.clone();
                    value.extend(obj);
                    Component {
                        id: id.clone(),
                        kind: old.kind.clone(),
                        value,
                    }
                }
                (None, None) => {
                    return Err(A2uiError::field(
                        format!("{at}.component"),
                        DetailCode::MissingField,
                        format!("Cannot create component {id} without a type"),
                    ))
                }
            };
            if strict {
                let depth = topology::call_depth(&Value::Object(component.value.clone()));
                if depth > limits.max_call_depth {
                    return Err(A2uiError::new(
                        Category::Recursion,
                        call_depth_message(depth, limits.max_call_depth),
                    ));
                }
                let details = surface.catalog.validate_component(&component.value);
                if let Some(first) = details.first() {
                    let message = format!(
                        "Validation failed for component '{}' (id '{id}'): {}",
                        component.kind, first.message
                    );
                    return Err(A2uiError {
                        category: Category::Validation,
                        message,
                        details,
                    }
                    .under(&at));
                }
            }
            next.insert(id, component);
        }
        if next.len() > limits.max_components {
            return Err(A2uiError::limit(format!(
                "surface '{surface_id}' would have {} components, more than {}",
                next.len(),
                limits.max_components
            )));
        }
        if strict {
            let issues = topology::check(&next, &surface.catalog, limits.max_depth);
            if let Some(issue) = issues.first() {
                let category = match issue {
                    Issue::TooDeep { .. } => Category::Limit,
                    _ => Category::Validation,
                };
                return Err(A2uiError::new(category, issue.message()));
            }
        }
        let ids = next
            .iter()
            .filter(|(id, c)| surface.components.get(*id) != Some(*c))
            .map(|(id, _)| id.clone())
            .collect();
        surface.components = next;
        for w in warnings {
            surface.warn(w);
        }
        Ok(Change::Components {
            surface: surface_id,
            ids,
        })
    }

    /// The data models the renderer sends back to the agent: those of surfaces created with
    /// `sendDataModel: true`, or `None` when there is none.
    pub fn renderer_data_model(&self) -> Option<Value> {
        let surfaces: Map<String, Value> = self
            .surfaces
            .iter()
            .filter(|s| s.send_data_model)
            .map(|s| (s.id.clone(), s.data_model.clone()))
            .collect();
        (!surfaces.is_empty()).then(|| json!({ "version": "v0.9", "surfaces": surfaces }))
    }

    /// The renderer's capabilities for an agent: the catalog ids it supports and, when asked,
    /// the catalogs given as JSON inline.
    pub fn capabilities(&self, include_inline: bool) -> Value {
        let ids: Vec<&str> = self.catalogs.iter().map(|(id, _)| id.as_str()).collect();
        let mut caps = json!({ "supportedCatalogIds": ids });
        if include_inline {
            let inline: Vec<Value> = self
                .catalogs
                .iter()
                .filter(|(_, c)| matches!(**c, Catalog::Schema(_)))
                .map(|(id, c)| c.inline_json(id))
                .collect();
            caps["inlineCatalogs"] = Value::Array(inline);
        }
        json!({ "v0.9": caps })
    }
}
