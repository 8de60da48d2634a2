//! The basic catalog of A2UI v0.9 (`specification/v0_9/catalogs/basic/catalog.json`) as one
//! table: each component's properties with their types, and each function's arguments and
//! return type. The validator, the topology walk and the renderer all read this table.

/// The type of a property, named after the catalog's and common types' definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ty {
    Str,
    Num,
    Bool,
    /// `DynamicString`: a string, a `{path}` binding or a call returning a string.
    DynStr,
    DynNum,
    DynBool,
    DynStrList,
    /// `DynamicValue`: a literal, a binding or a call returning anything.
    DynValue,
    /// `ChildList`: ids, or a template `{componentId, path}`.
    ChildList,
    /// `ComponentId`: a reference to another component.
    Id,
    Enum(&'static [&'static str]),
    Action,
    Checks,
    Tabs,
    Options,
    Icon,
    Accessibility,
}

/// One property: name, type, required.
pub(crate) type Prop = (&'static str, Ty, bool);

/// One component of the catalog.
pub(crate) struct Spec {
    pub name: &'static str,
    pub props: &'static [Prop],
    /// Takes `checks` (the common `Checkable`).
    pub checkable: bool,
}

/// Properties every component may carry besides `id` and `component`.
pub(crate) const COMMON: &[Prop] = &[
    ("accessibility", Ty::Accessibility, false),
    ("weight", Ty::Num, false),
];

const JUSTIFY: &[&str] = &[
    "center",
    "end",
    "spaceAround",
    "spaceBetween",
    "spaceEvenly",
    "start",
    "stretch",
];
const ALIGN: &[&str] = &["start", "center", "end", "stretch"];

/// Icon names of the catalog's `Icon.name` enum.
pub(crate) const ICON_NAMES: &[&str] = &[
    "accountCircle",
    "add",
    "arrowBack",
    "arrowForward",
    "attachFile",
    "calendarToday",
    "call",
    "camera",
    "check",
    "close",
    "delete",
    "download",
    "edit",
    "event",
    "error",
    "fastForward",
    "favorite",
    "favoriteOff",
    "folder",
    "help",
    "home",
    "info",
    "locationOn",
    "lock",
    "lockOpen",
    "mail",
    "menu",
    "moreVert",
    "moreHoriz",
    "notificationsOff",
    "notifications",
    "pause",
    "payment",
    "person",
    "phone",
    "photo",
    "play",
    "print",
    "refresh",
    "rewind",
    "search",
    "send",
    "settings",
    "share",
    "shoppingCart",
    "skipNext",
    "skipPrevious",
    "star",
    "starHalf",
    "starOff",
    "stop",
    "upload",
    "visibility",
    "visibilityOff",
    "volumeDown",
    "volumeMute",
    "volumeOff",
    "volumeUp",
    "warning",
];

#[rustfmt::skip]
pub(crate) const COMPONENTS: &[Spec] = &[
    Spec { name: "Text", checkable: false, props: &[
        ("text", Ty::DynStr, true),
        ("variant", Ty::Enum(&["h1", "h2", "h3", "h4", "h5", "caption", "body"]), false)] },
    Spec { name: "Image", checkable: false, props: &[
        ("url", Ty::DynStr, true), ("description", Ty::DynStr, false),
        ("fit", Ty::Enum(&["contain", "cover", "fill", "none", "scaleDown"]), false),
        ("variant", Ty::Enum(&["icon", "avatar", "smallFeature", "mediumFeature", "largeFeature", "header"]), false)] },
    Spec { name: "Icon", checkable: false, props: &[("name", Ty::Icon, true)] },
    Spec { name: "Video", checkable: false, props: &[("url", Ty::DynStr, true)] },
    Spec { name: "AudioPlayer", checkable: false, props: &[
        ("url", Ty::DynStr, true), ("description", Ty::DynStr, false)] },
    Spec { name: "Row", checkable: false, props: &[
        ("children", Ty::ChildList, true), ("justify", Ty::Enum(JUSTIFY), false), ("align", Ty::Enum(ALIGN), false)] },
    Spec { name: "Column", checkable: false, props: &[
        ("children", Ty::ChildList, true), ("justify", Ty::Enum(JUSTIFY), false), ("align", Ty::Enum(ALIGN), false)] },
    Spec { name: "List", checkable: false, props: &[
        ("children", Ty::ChildList, true), ("direction", Ty::Enum(&["vertical", "horizontal"]), false),
        ("align", Ty::Enum(ALIGN), false)] },
    Spec { name: "Card", checkable: false, props: &[("child", Ty::Id, true)] },
    Spec { name: "Tabs", checkable: false, props: &[("tabs", Ty::Tabs, true)] },
    Spec { name: "Modal", checkable: false, props: &[("trigger", Ty::Id, true), ("content", Ty::Id, true)] },
    Spec { name: "Divider", checkable: false, props: &[("axis", Ty::Enum(&["horizontal", "vertical"]), false)] },
    Spec { name: "Button", checkable: true, props: &[
        ("child", Ty::Id, true), ("variant", Ty::Enum(&["default", "primary", "borderless"]), false),
        ("action", Ty::Action, true)] },
    Spec { name: "TextField", checkable: true, props: &[
        ("label", Ty::DynStr, true), ("value", Ty::DynStr, false),
        ("variant", Ty::Enum(&["longText", "number", "shortText", "obscured"]), false),
        ("validationRegexp", Ty::Str, false)] },
    Spec { name: "CheckBox", checkable: true, props: &[("label", Ty::DynStr, true), ("value", Ty::DynBool, true)] },
    Spec { name: "ChoicePicker", checkable: true, props: &[
        ("label", Ty::DynStr, false),
        ("variant", Ty::Enum(&["multipleSelection", "mutuallyExclusive"]), false),
        ("options", Ty::Options, true), ("value", Ty::DynStrList, true),
        ("displayStyle", Ty::Enum(&["checkbox", "chips"]), false), ("filterable", Ty::Bool, false)] },
    Spec { name: "Slider", checkable: true, props: &[
        ("label", Ty::DynStr, false), ("min", Ty::Num, false), ("max", Ty::Num, true), ("value", Ty::DynNum, true)] },
    Spec { name: "DateTimeInput", checkable: true, props: &[
        ("value", Ty::DynStr, true), ("enableDate", Ty::Bool, false), ("enableTime", Ty::Bool, false),
        ("min", Ty::DynStr, false), ("max", Ty::DynStr, false), ("label", Ty::DynStr, false)] },
];

/// What a function returns, as `FunctionCall.returnType` names it.
pub(crate) type Returns = &'static str;

/// One function: name, required arguments, optional arguments, return type.
pub(crate) struct Function {
    pub name: &'static str,
    pub required: &'static [&'static str],
    pub optional: &'static [&'static str],
    pub returns: Returns,
}

#[rustfmt::skip]
pub(crate) const FUNCTIONS: &[Function] = &[
    Function { name: "required", required: &["value"], optional: &[], returns: "boolean" },
    Function { name: "regex", required: &["value", "pattern"], optional: &[], returns: "boolean" },
    Function { name: "length", required: &["value"], optional: &["min", "max"], returns: "boolean" },
    Function { name: "numeric", required: &["value"], optional: &["min", "max"], returns: "boolean" },
    Function { name: "email", required: &["value"], optional: &[], returns: "boolean" },
    Function { name: "formatString", required: &["value"], optional: &[], returns: "string" },
    Function { name: "formatNumber", required: &["value"], optional: &["decimals", "grouping"], returns: "string" },
    Function { name: "formatCurrency", required: &["value", "currency"], optional: &["decimals", "grouping"], returns: "string" },
    Function { name: "formatDate", required: &["value", "format"], optional: &[], returns: "string" },
    Function { name: "pluralize", required: &["value", "other"], optional: &["zero", "one", "two", "few", "many"], returns: "string" },
    Function { name: "openUrl", required: &["url"], optional: &[], returns: "void" },
    Function { name: "and", required: &["values"], optional: &[], returns: "boolean" },
    Function { name: "or", required: &["values"], optional: &[], returns: "boolean" },
    Function { name: "not", required: &["value"], optional: &[], returns: "boolean" },
];

pub(crate) fn component(name: &str) -> Option<&'static Spec> {
    COMPONENTS.iter().find(|s| s.name == name)
}

pub(crate) fn function(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

/// The spec of a property of `spec` (its own, the common ones, `checks` when checkable).
pub(crate) fn prop(spec: &Spec, name: &str) -> Option<Ty> {
    if spec.checkable && name == "checks" {
        return Some(Ty::Checks);
    }
    spec.props
        .iter()
        .chain(COMMON)
        .find(|(n, _, _)| *n == name)
        .map(|(_, t, _)| *t)
}
