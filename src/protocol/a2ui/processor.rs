//! The message processor: surfaces built from A2UI messages, in order, each message applied
//! whole or not at all, with a report of what it changed (so a renderer touches only that).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::catalog::{Catalog, BASIC_CATALOG_IDS};
use super::error::{A2uiError, Category};
use super::limits::A2uiLimits;
use super::message::{parse_message, A2uiMessage};
use super::surface::Surface;

mod apply;

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
