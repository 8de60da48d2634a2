//! Applying the two structural messages: creating a surface, and updating its components.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::{Change, Processor, ProcessorOptions};
use crate::protocol::a2ui::catalog::Catalog;
use crate::protocol::a2ui::component::Component;
use crate::protocol::a2ui::error::{A2uiError, Category, DetailCode};
use crate::protocol::a2ui::limits::measure;
use crate::protocol::a2ui::surface::{call_depth_message, component_bounds, Surface};
use crate::protocol::a2ui::topology::{self, Issue};

impl Processor {
    pub(super) fn create(
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

    pub(super) fn update_components(
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
}
