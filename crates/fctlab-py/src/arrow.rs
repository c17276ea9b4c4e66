//! The result tables handed to Python as Arrow arrays, without copying a value.
//!
//! The core builds each table as columns already laid out as Arrow lays them out
//! (`fctlab_core::metrics::tables::Column`). This module exports them through the Arrow C data
//! interface (<https://arrow.apache.org/docs/format/CDataInterface.html>) and its PyCapsule
//! protocol: an [`ArrowTable`] has `__arrow_c_array__`, which returns two capsules, the schema of
//! a struct array (one child per column) and the array itself. polars (`pl.DataFrame(table)`)
//! imports the buffers in place and frees them, through the `release` callbacks below, when it
//! is done with them; a capsule nobody imported frees them when it is collected.
//!
//! Types: `i64` is Arrow `int64` (`l`), `f64` `float64` (`g`), with a validity bitmap where
//! the column may hold nulls, `str` `large_utf8` (`U`), `bool` `boolean` (`b`), `list[i64]`
//! `large_list<int64>` (`+L`).

use fctlab_core::metrics::tables::{Bits, Column};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use std::ffi::{c_char, c_void, CStr, CString};
use std::ptr::{self, NonNull};

/// `ArrowSchema` of the C data interface.
#[repr(C)]
pub struct FfiSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut FfiSchema,
    dictionary: *mut FfiSchema,
    release: Option<unsafe extern "C" fn(*mut FfiSchema)>,
    private_data: *mut c_void,
}

/// `ArrowArray` of the C data interface.
#[repr(C)]
pub struct FfiArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut FfiArray,
    dictionary: *mut FfiArray,
    release: Option<unsafe extern "C" fn(*mut FfiArray)>,
    private_data: *mut c_void,
}

/// `ARROW_FLAG_NULLABLE`.
const NULLABLE: i64 = 2;

/// One owned buffer of an array.
enum Buffer {
    /// No buffer (a validity bitmap of a column without nulls).
    Absent,
    Bytes(Vec<u8>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl Buffer {
    fn ptr(&self) -> *const c_void {
        match self {
            Buffer::Absent => ptr::null(),
            Buffer::Bytes(v) => v.as_ptr().cast(),
            Buffer::I64(v) => v.as_ptr().cast(),
            Buffer::F64(v) => v.as_ptr().cast(),
        }
    }
}

/// An array before export: its type, its buffers and its children, all owned.
struct Node {
    format: &'static CStr,
    name: CString,
    nullable: bool,
    length: usize,
    null_count: usize,
    buffers: Vec<Buffer>,
    children: Vec<Node>,
}

impl Node {
    fn new(name: &str, format: &'static CStr, length: usize, buffers: Vec<Buffer>) -> Node {
        Node {
            format,
            // Column names are identifiers from the core's column list: never an inner NUL.
            name: CString::new(name).unwrap_or_default(),
            nullable: false,
            length,
            null_count: 0,
            buffers,
            children: Vec::new(),
        }
    }

    /// The Arrow array of one result column.
    fn column(name: &str, column: Column) -> Node {
        let n = column.len();
        match column {
            Column::I64(v) => Node::new(name, c"l", n, vec![Buffer::Absent, Buffer::I64(v)]),
            Column::F64(v) => Node::new(name, c"g", n, vec![Buffer::Absent, Buffer::F64(v)]),
            Column::OptF64(v) => {
                let nulls = v.valid.zeros();
                let validity = if nulls > 0 { Buffer::Bytes(v.valid.bytes) } else { Buffer::Absent };
                let mut node = Node::new(name, c"g", n, vec![validity, Buffer::F64(v.values)]);
                node.nullable = true;
                node.null_count = nulls;
                node
            }
            Column::Str(v) => {
                Node::new(name, c"U", n, vec![Buffer::Absent, Buffer::I64(v.offsets), Buffer::Bytes(v.data)])
            }
            Column::Bool(Bits { bytes, .. }) => Node::new(name, c"b", n, vec![Buffer::Absent, Buffer::Bytes(bytes)]),
            Column::Ids(v) => {
                let values = Node::new("item", c"l", v.values.len(), vec![Buffer::Absent, Buffer::I64(v.values)]);
                let mut node = Node::new(name, c"+L", n, vec![Buffer::Absent, Buffer::I64(v.offsets)]);
                node.children.push(values);
                node
            }
        }
    }

    /// The struct array of a table: one child per column, in order.
    fn table(columns: Vec<(&'static str, Column)>) -> Node {
        let rows = columns.first().map_or(0, |(_, c)| c.len());
        let mut node = Node::new("", c"+s", rows, vec![Buffer::Absent]);
        node.children = columns.into_iter().map(|(name, c)| Node::column(name, c)).collect();
        node
    }

    /// Exports the schema (types and names) of this array and its children.
    fn schema(&self) -> FfiSchema {
        let mut children: Vec<*mut FfiSchema> =
            self.children.iter().map(|c| Box::into_raw(Box::new(c.schema()))).collect();
        let private =
            Box::new(SchemaPrivate { name: self.name.clone(), children_ptr: children.as_mut_ptr(), children });
        FfiSchema {
            format: self.format.as_ptr(),
            name: private.name.as_ptr(),
            metadata: ptr::null(),
            flags: if self.nullable { NULLABLE } else { 0 },
            n_children: private.children.len() as i64,
            children: private.children_ptr,
            dictionary: ptr::null_mut(),
            release: Some(release_schema),
            private_data: Box::into_raw(private).cast(),
        }
    }

    /// Exports the array, handing its buffers over to the consumer.
    fn into_array(self) -> FfiArray {
        let mut children: Vec<*mut FfiArray> =
            self.children.into_iter().map(|c| Box::into_raw(Box::new(c.into_array()))).collect();
        let mut pointers: Vec<*const c_void> = self.buffers.iter().map(Buffer::ptr).collect();
        let private = Box::new(ArrayPrivate {
            pointers_ptr: pointers.as_mut_ptr(),
            children_ptr: children.as_mut_ptr(),
            pointers,
            _buffers: self.buffers,
            children,
        });
        FfiArray {
            length: self.length as i64,
            null_count: self.null_count as i64,
            offset: 0,
            n_buffers: private.pointers.len() as i64,
            n_children: private.children.len() as i64,
            buffers: private.pointers_ptr,
            children: private.children_ptr,
            dictionary: ptr::null_mut(),
            release: Some(release_array),
            private_data: Box::into_raw(private).cast(),
        }
    }
}

/// What an exported schema owns.
struct SchemaPrivate {
    name: CString,
    children: Vec<*mut FfiSchema>,
    children_ptr: *mut *mut FfiSchema,
}

/// What an exported array owns: its buffers, the pointer list the consumer reads, its children.
struct ArrayPrivate {
    pointers: Vec<*const c_void>,
    pointers_ptr: *mut *const c_void,
    _buffers: Vec<Buffer>,
    children: Vec<*mut FfiArray>,
    children_ptr: *mut *mut FfiArray,
}

/// Releases each child (schema or array) the consumer did not move out, and frees its box.
///
/// # Safety
/// Each pointer is a box made by the export and not freed yet.
unsafe fn free_children<T>(children: &[*mut T], release_of: impl Fn(&T) -> Option<unsafe extern "C" fn(*mut T)>) {
    for &child in children {
        // SAFETY: the caller's contract: a live box of the export.
        unsafe {
            if let Some(release) = release_of(&*child) {
                release(child);
            }
            drop(Box::from_raw(child));
        }
    }
}

/// The schema's `release`: frees it and its children (those the consumer did not move out).
unsafe extern "C" fn release_schema(schema: *mut FfiSchema) {
    // SAFETY: called by the consumer on a schema exported by `Node::schema` (or a struct moved
    // from one), at most once while `release` is set: `private_data` is then the Box it made.
    unsafe {
        let Some(s) = schema.as_mut() else { return };
        if s.release.is_none() {
            return;
        }
        let private = Box::from_raw(s.private_data.cast::<SchemaPrivate>());
        free_children(&private.children, |c| c.release);
        s.release = None;
    }
}

/// The array's `release`: frees its buffers and its children (those not moved out).
unsafe extern "C" fn release_array(array: *mut FfiArray) {
    // SAFETY: as `release_schema`, for arrays exported by `Node::into_array`.
    unsafe {
        let Some(a) = array.as_mut() else { return };
        if a.release.is_none() {
            return;
        }
        let private = Box::from_raw(a.private_data.cast::<ArrayPrivate>());
        free_children(&private.children, |c| c.release);
        a.release = None;
    }
}

const SCHEMA_CAPSULE: &CStr = c"arrow_schema";
const ARRAY_CAPSULE: &CStr = c"arrow_array";

/// Destructor of an `arrow_schema` capsule: releases the schema unless a consumer took it.
unsafe extern "C" fn drop_schema_capsule(capsule: *mut ffi::PyObject) {
    // SAFETY: the capsule was made by `capsules` around a `Box<FfiSchema>`.
    unsafe {
        let p = ffi::PyCapsule_GetPointer(capsule, SCHEMA_CAPSULE.as_ptr()).cast::<FfiSchema>();
        if p.is_null() {
            ffi::PyErr_Clear();
            return;
        }
        if let Some(release) = (*p).release {
            release(p);
        }
        drop(Box::from_raw(p));
    }
}

/// Destructor of an `arrow_array` capsule: releases the array unless a consumer took it.
unsafe extern "C" fn drop_array_capsule(capsule: *mut ffi::PyObject) {
    // SAFETY: the capsule was made by `capsules` around a `Box<FfiArray>`.
    unsafe {
        let p = ffi::PyCapsule_GetPointer(capsule, ARRAY_CAPSULE.as_ptr()).cast::<FfiArray>();
        if p.is_null() {
            ffi::PyErr_Clear();
            return;
        }
        if let Some(release) = (*p).release {
            release(p);
        }
        drop(Box::from_raw(p));
    }
}

/// A result table (or a piece of the flows table) ready for polars: `pl.DataFrame(table)`.
/// It can be exported once; its buffers then belong to the importer.
#[pyclass(module = "fctlab._core", name = "ArrowTable")]
pub struct ArrowTable {
    rows: usize,
    node: Option<Node>,
}

// SAFETY: a `Node` owns plain Rust buffers only (no pointers until it is exported).
unsafe impl Send for ArrowTable {}
unsafe impl Sync for ArrowTable {}

impl ArrowTable {
    /// A table of these columns (all of one length), in order.
    pub fn new(columns: Vec<(&'static str, Column)>) -> ArrowTable {
        let node = Node::table(columns);
        ArrowTable { rows: node.length, node: Some(node) }
    }
}

#[pymethods]
impl ArrowTable {
    /// Rows.
    fn __len__(&self) -> usize {
        self.rows
    }

    /// The Arrow PyCapsule protocol: (schema capsule, array capsule) of a struct array with one
    /// child per column. `requested_schema` is ignored: the table has one layout.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let node = self.node.take().ok_or_else(|| PyValueError::new_err("this ArrowTable was already exported"))?;
        let schema = Box::into_raw(Box::new(node.schema()));
        let array = Box::into_raw(Box::new(node.into_array()));
        // SAFETY: both pointers come from Box::into_raw and are freed by the capsules'
        // destructors (after releasing what the consumer left).
        let capsules = unsafe {
            let s = PyCapsule::new_with_pointer_and_destructor(
                py,
                NonNull::new_unchecked(schema.cast()),
                SCHEMA_CAPSULE,
                Some(drop_schema_capsule),
            );
            let a = PyCapsule::new_with_pointer_and_destructor(
                py,
                NonNull::new_unchecked(array.cast()),
                ARRAY_CAPSULE,
                Some(drop_array_capsule),
            );
            (s, a)
        };
        let (s, a) = match capsules {
            (Ok(s), Ok(a)) => (s, a),
            (s, a) => {
                // Whichever capsule exists frees its part when dropped; free the other here.
                if s.is_err() {
                    // SAFETY: not owned by any capsule.
                    unsafe {
                        release_schema(schema);
                        drop(Box::from_raw(schema));
                    }
                }
                if a.is_err() {
                    // SAFETY: not owned by any capsule.
                    unsafe {
                        release_array(array);
                        drop(Box::from_raw(array));
                    }
                }
                return Err(s.err().or(a.err()).unwrap_or_else(|| PyValueError::new_err("capsule")));
            }
        };
        PyTuple::new(py, [s.into_any(), a.into_any()])
    }
}
