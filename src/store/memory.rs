//! The in-memory image of a result file: what the store writers would put in an HDF5 file
//! (groups, coordinates, variables with their dims and attributes), kept as owned vectors.
//!
//! The Python package writes here instead of to a file ([`H5Out::memory`](super::H5Out::memory)),
//! so its NumPy arrays take these vectors over without a file round trip, while the layout,
//! names and attributes still come from the one set of writers the CLI uses.

use hdf5::H5Type;

/// The values of one variable, row-major, by element type.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    F64(Vec<f64>),
    F32(Vec<f32>),
    I64(Vec<i64>),
    I32(Vec<i32>),
    I16(Vec<i16>),
    I8(Vec<i8>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    U16(Vec<u16>),
    U8(Vec<u8>),
}

impl Values {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Values::F64(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::I32(v) => v.len(),
            Values::I16(v) => v.len(),
            Values::I8(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::U32(v) => v.len(),
            Values::U16(v) => v.len(),
            Values::U8(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An element type a variable can hold: the HDF5 types the writers use, each with its place
/// in [`Values`].
pub trait Elem: H5Type + Clone + Default + bytemuck::Pod + Send + Sync + 'static {
    /// The vector as [`Values`].
    fn values(v: Vec<Self>) -> Values;
    /// The vector inside `v` if it holds this type.
    fn slot(v: &mut Values) -> Option<&mut Vec<Self>>;
}

macro_rules! elem {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl Elem for $t {
            fn values(v: Vec<Self>) -> Values {
                Values::$variant(v)
            }
            fn slot(v: &mut Values) -> Option<&mut Vec<Self>> {
                match v {
                    Values::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
    )*};
}

elem!(f64 => F64, f32 => F32, i64 => I64, i32 => I32, i16 => I16, i8 => I8,
      u64 => U64, u32 => U32, u16 => U16, u8 => U8);

/// An attribute value, as the writers' setters store it in a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    F64(f64),
    I64(i64),
    /// A boolean, stored as `i8` 0 or 1 (netCDF's byte).
    I8(i8),
    Str(String),
    F64s(Vec<f64>),
    U8s(Vec<u8>),
}

/// A variable or coordinate (a coordinate's one dim is its own name).
#[derive(Debug, Clone, PartialEq)]
pub struct MemVar {
    pub name: String,
    pub dims: Vec<String>,
    pub shape: Vec<usize>,
    pub values: Values,
    pub attrs: Vec<(String, Attr)>,
    /// A coordinate (in a file: a dimension scale).
    pub coord: bool,
}

impl MemVar {
    /// A coordinate: its one dim is its own name.
    pub(super) fn coord(name: &str, values: Values) -> MemVar {
        MemVar {
            name: name.into(),
            dims: vec![name.into()],
            shape: vec![values.len()],
            values,
            attrs: Vec::new(),
            coord: true,
        }
    }

    /// A data variable over `dims` of lengths `shape`.
    pub(super) fn data(name: &str, dims: &[&str], shape: &[usize], values: Values) -> MemVar {
        MemVar {
            name: name.into(),
            dims: dims.iter().map(|d| d.to_string()).collect(),
            shape: shape.to_vec(),
            values,
            attrs: Vec::new(),
            coord: false,
        }
    }
}

/// A group: its attributes, variables and subgroups, each in the order written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MemGroup {
    pub name: String,
    pub attrs: Vec<(String, Attr)>,
    pub vars: Vec<MemVar>,
    pub groups: Vec<MemGroup>,
}

impl MemGroup {
    /// The subgroup `name`, if written.
    pub fn group(&self, name: &str) -> Option<&MemGroup> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// The variable or coordinate `name` of this group, if written.
    pub fn var(&self, name: &str) -> Option<&MemVar> {
        self.vars.iter().find(|v| v.name == name)
    }

    /// Takes the subgroup `name` out of the tree.
    pub fn take_group(&mut self, name: &str) -> Option<MemGroup> {
        let i = self.groups.iter().position(|g| g.name == name)?;
        Some(self.groups.remove(i))
    }
}

/// The groups of an image being written, flat so that writers can hold indices into it;
/// [`Image::into_tree`] nests them.
#[derive(Debug, Default)]
pub(super) struct Image {
    nodes: Vec<Node>,
}

#[derive(Debug, Default)]
struct Node {
    group: MemGroup,
    parent: usize,
    children: Vec<usize>,
}

impl Image {
    /// An image holding only its root group (index 0).
    pub(super) fn new() -> Image {
        Image {
            nodes: vec![Node::default()],
        }
    }

    /// Whether group `i` has a subgroup or variable `name` (HDF5 links share one namespace).
    fn taken(&self, i: usize, name: &str) -> bool {
        self.group(i).var(name).is_some()
            || self.nodes[i]
                .children
                .iter()
                .any(|&c| self.nodes[c].group.name == name)
    }

    /// Adds the subgroup `name` of group `parent`, or None if the name is taken there.
    pub(super) fn add_group(&mut self, parent: usize, name: &str) -> Option<usize> {
        if self.taken(parent, name) {
            return None;
        }
        self.nodes.push(Node {
            group: MemGroup {
                name: name.into(),
                ..MemGroup::default()
            },
            parent,
            children: Vec::new(),
        });
        let i = self.nodes.len() - 1;
        self.nodes[parent].children.push(i);
        Some(i)
    }

    /// Adds `var` to group `i` and returns its index there, or None if the name is taken.
    pub(super) fn add_var(&mut self, i: usize, var: MemVar) -> Option<usize> {
        if self.taken(i, &var.name) {
            return None;
        }
        let vars = &mut self.group_mut(i).vars;
        vars.push(var);
        Some(vars.len() - 1)
    }

    /// The path of group `i` as HDF5 names it (`/`, `/measure/set_1`), for messages.
    pub(super) fn path(&self, i: usize) -> String {
        if i == 0 {
            return "/".into();
        }
        let up = self.path(self.nodes[i].parent);
        format!("{}/{}", up.trim_end_matches('/'), self.nodes[i].group.name)
    }

    pub(super) fn group(&self, i: usize) -> &MemGroup {
        &self.nodes[i].group
    }

    pub(super) fn group_mut(&mut self, i: usize) -> &mut MemGroup {
        &mut self.nodes[i].group
    }

    /// The root group with its subgroups nested.
    pub(super) fn into_tree(mut self) -> MemGroup {
        fn nest(nodes: &mut [Node], i: usize) -> MemGroup {
            let children = std::mem::take(&mut nodes[i].children);
            let mut g = std::mem::take(&mut nodes[i].group);
            g.groups = children.into_iter().map(|c| nest(nodes, c)).collect();
            g
        }
        nest(&mut self.nodes, 0)
    }
}
