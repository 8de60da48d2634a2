//! A surface: what `createSurface` set, its components by id and its data model; the checks
//! that judge it without rejecting it (for the renderer), and bounded writes to its model.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::catalog::Catalog;
use super::component::Component;
use super::error::A2uiError;
use super::limits::{measure, A2uiLimits, Bounds};
use super::pointer;
use super::topology;

/// Something wrong with a surface that does not stop it from rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceIssue {
    /// The component it is shown on; `None` for the surface as a whole.
    pub component: Option<String>,
    pub message: String,
}

/// Warnings a surface keeps (later ones are dropped).
const MAX_WARNINGS: usize = 20;

/// A surface: what `createSurface` set, its components by id and its data model.
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    pub id: String,
    pub catalog_id: String,
    pub catalog: Arc<Catalog>,
    pub theme: Map<String, Value>,
    pub send_data_model: bool,
    pub components: BTreeMap<String, Component>,
    pub data_model: Value,
    /// What the processor accepted with a warning (a catalog it did not know, a duplicate id…).
    pub warnings: Vec<String>,
}

pub(crate) fn data_bounds(l: &A2uiLimits) -> Bounds {
    Bounds {
        what: "the data model",
        max_bytes: l.max_data_bytes,
        max_nodes: l.max_data_nodes,
        max_depth: l.max_json_depth,
        max_string_len: l.max_string_len,
    }
}

pub(crate) fn component_bounds(l: &A2uiLimits) -> Bounds {
    Bounds {
        what: "a component",
        max_bytes: l.max_component_bytes,
        max_nodes: l.max_component_bytes,
        max_depth: l.max_json_depth,
        max_string_len: l.max_string_len,
    }
}

impl Surface {
    pub(crate) fn warn(&mut self, w: String) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(w);
        }
    }

    /// What the catalog says is wrong with one component (empty when it is fine or unknown).
    pub fn component_issues(&self, id: &str, limits: &A2uiLimits) -> Vec<String> {
        let Some(c) = self.components.get(id) else {
            return Vec::new();
        };
        let mut out: Vec<String> = self
            .catalog
            .validate_component(&c.value)
            .into_iter()
            .map(|d| d.message)
            .collect();
        let depth = topology::call_depth(&Value::Object(c.value.clone()));
        if depth > limits.max_call_depth {
            out.push(call_depth_message(depth, limits.max_call_depth));
        }
        out
    }

    /// Everything wrong with the surface: warnings, the graph's issues and each component's.
    pub fn issues(&self, limits: &A2uiLimits) -> Vec<SurfaceIssue> {
        let mut out: Vec<SurfaceIssue> = self
            .warnings
            .iter()
            .map(|w| SurfaceIssue {
                component: None,
                message: w.clone(),
            })
            .collect();
        if !self.components.is_empty() {
            for i in topology::check(&self.components, &self.catalog, limits.max_depth) {
                out.push(SurfaceIssue {
                    component: i.component().map(str::to_string),
                    message: i.message(),
                });
            }
        }
        for id in self.components.keys() {
            for message in self.component_issues(id, limits) {
                out.push(SurfaceIssue {
                    component: Some(id.clone()),
                    message,
                });
            }
        }
        out
    }

    /// Writes (or with `None` removes) a value of the data model, as `updateDataModel` does and
    /// as an input bound to the model does on a local edit. All or nothing: a write past a
    /// bound leaves the model as it was.
    pub fn write(
        &mut self,
        path: Option<&str>,
        value: Option<Value>,
        limits: &A2uiLimits,
    ) -> Result<String, A2uiError> {
        write_data(&mut self.data_model, path, value, limits)
    }

    /// A value of the data model by absolute pointer.
    pub fn read(&self, path: &str) -> Option<&Value> {
        pointer::get_path(&self.data_model, path)
    }
}

/// [`Surface::write`] on any data model (the renderer keeps its own, with the user's edits):
/// returns the path written (`/` for the whole model).
pub fn write_data(
    model: &mut Value,
    path: Option<&str>,
    value: Option<Value>,
    limits: &A2uiLimits,
) -> Result<String, A2uiError> {
    let path = path.filter(|p| !p.is_empty()).unwrap_or("/");
    if path.len() > limits.max_id_len {
        return Err(A2uiError::limit(format!(
            "a data-model path is longer than {} bytes",
            limits.max_id_len
        )));
    }
    let segments = pointer::parse(path)?;
    if segments.len() > limits.max_json_depth {
        return Err(A2uiError::limit(format!(
            "a data-model path is deeper than {} levels",
            limits.max_json_depth
        )));
    }
    let mut next = model.clone();
    match value {
        Some(v) => {
            measure(&v, &data_bounds(limits))?;
            pointer::set(&mut next, &segments, v)?;
        }
        None => pointer::remove(&mut next, &segments),
    }
    measure(&next, &data_bounds(limits))?;
    *model = next;
    Ok(path.to_string())
}

pub(crate) fn call_depth_message(depth: usize, max: usize) -> String {
    format!("functionCall depth {depth} exceeds the maximum of {max}")
}
