// algebra.cpp: the layout algebra in Python: tessel.Layout (from CuTe notation or from shape and
// stride tuples), tessel.TVLayout, and CuTe's operations under CuTe's names, as functions of the
// module and, where CuTe has them, as methods.
#include <pybind11/operators.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "tessel/algebra.hpp"

namespace tessel::python {

namespace {

// A Python int or (nested) tuple/list of them as an IntTuple; a str is read as CuTe notation.
IntTuple to_int_tuple(py::handle h, const char* what) {
  if (py::isinstance<py::bool_>(h)) fail(std::string(what) + ": expected an int or a tuple of ints, got a bool");
  if (py::isinstance<py::int_>(h)) return IntTuple(h.cast<int64_t>());
  if (py::isinstance<py::str>(h)) return parse_int_tuple(h.cast<std::string>());
  if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    std::vector<IntTuple> elems;
    for (py::handle e : h) elems.push_back(to_int_tuple(e, what));
    return IntTuple::tuple(std::move(elems));
  }
  throw py::type_error(std::string(what) + ": expected an int or a tuple of ints, got " +
                       std::string(py::str(py::type::of(h).attr("__name__"))));
}

// An IntTuple as Python: static leaves as int, dynamic (or basis) leaves as their CuTe text.
py::object from_int_tuple(const IntTuple& t) {
  if (t.is_leaf()) {
    const Int& x = t.leaf();
    if (x.is_static() && !x.has_basis()) return py::int_(x.value());
    return py::str(to_string(t));
  }
  py::tuple out(t.elems().size());
  for (size_t i = 0; i < t.elems().size(); ++i) out[i] = from_int_tuple(t.elems()[i]);
  return out;
}

// A tiler as CuTe takes it: a Layout, a str in CuTe notation (`<3:3,(2,4):(1,8)>`, a layout, a
// shape), a tuple of Layouts (by mode), or a shape (an int or a tuple of ints: n:1 modes).
Tiler to_tiler(py::handle h) {
  if (py::isinstance<Layout>(h)) return Tiler(h.cast<Layout>());
  if (py::isinstance<py::str>(h)) return parse_tiler(h.cast<std::string>());
  if (py::isinstance<py::tuple>(h) || py::isinstance<py::list>(h)) {
    bool layouts = py::len(h) > 0;
    for (py::handle e : h) layouts = layouts && (py::isinstance<Layout>(e) || py::isinstance<py::str>(e));
    if (layouts) {
      std::vector<Layout> modes;
      for (py::handle e : h) modes.push_back(py::isinstance<Layout>(e) ? e.cast<Layout>() : parse_layout(e.cast<std::string>()));
      return Tiler(std::move(modes));
    }
  }
  return Tiler::from_shape(to_int_tuple(h, "tiler"));
}

// A Layout argument: a Layout, or a str in CuTe notation.
Layout to_layout(py::handle h) {
  if (py::isinstance<Layout>(h)) return h.cast<Layout>();
  if (py::isinstance<py::str>(h)) return parse_layout(h.cast<std::string>());
  throw py::type_error("expected a tessel.Layout or a layout in CuTe notation, got " +
                       std::string(py::str(py::type::of(h).attr("__name__"))));
}

std::string repr(const Layout& l) { return "Layout(\"" + to_string(l) + "\")"; }

}  // namespace

void bind_algebra(py::module_& m) {
  py::class_<Layout> layout(m, "Layout",
                            "A CuTe layout, shape:stride. Layout(\"(4,8):(8,1)\"), Layout((4,8), (8,1)), or "
                            "Layout((4,8)) (compact column-major).");
  layout
      .def(py::init([](py::object shape, py::object stride) {
             if (py::isinstance<py::str>(shape)) {
               if (!stride.is_none()) fail("Layout(\"" + shape.cast<std::string>() +
                                           "\", stride): a layout in CuTe notation carries its own stride");
               return parse_layout(shape.cast<std::string>());
             }
             const Shape s = to_int_tuple(shape, "Layout shape");
             if (stride.is_none()) return make_layout(s);
             const Stride d = to_int_tuple(stride, "Layout stride");
             if (!congruent(s, d))
               fail("Layout: the stride " + to_string(d) + " is not congruent to the shape " + to_string(s));
             return make_layout(s, d);
           }),
           py::arg("shape"), py::arg("stride") = py::none())
      .def_property_readonly("shape", [](const Layout& l) { return from_int_tuple(l.shape()); })
      .def_property_readonly("stride", [](const Layout& l) { return from_int_tuple(l.stride()); })
      .def("size", [](const Layout& l) { return from_int_tuple(size(l)); })
      .def("cosize", [](const Layout& l) { return from_int_tuple(cosize(l)); })
      .def("rank", [](const Layout& l) { return rank(l); })
      .def("depth", [](const Layout& l) { return depth(l); })
      .def("__len__", [](const Layout& l) { return rank(l); })
      .def("__getitem__", [](const Layout& l, int i) {
        if (i < 0 || i >= l.rank())
          throw py::index_error("mode " + std::to_string(i) + " of " + to_string(l) + ", which has rank " +
                                std::to_string(l.rank()));
        return l[i];
      })
      // crd2idx: L(i) for an index, L((i,j)) for a coordinate of any profile of the shape.
      .def("__call__", [](const Layout& l, py::object c) { return from_int_tuple(l(to_int_tuple(c, "coordinate"))); })
      .def(py::self == py::self)
      .def("__str__", [](const Layout& l) { return to_string(l); })
      .def("__repr__", &repr)
      .def("table", &layout_table, "The index table of a rank <= 2 layout, as CuTe's print_layout.")
      .def("svg", &layout_svg, "An SVG drawing of a rank <= 2 layout.");

  py::class_<TVLayout>(m, "TVLayout", "A thread-value layout: (thread, value) -> index in the tile `tiler`.")
      .def_property_readonly("tiler", [](const TVLayout& tv) { return from_int_tuple(tv.tiler); })
      .def_property_readonly("layout", [](const TVLayout& tv) { return tv.layout; })
      .def("__str__", [](const TVLayout& tv) { return to_string(tv); })
      .def("__repr__", [](const TVLayout& tv) { return "TVLayout(\"" + to_string(tv) + "\")"; })
      .def("table", &tv_table, "The (M,N) tile, each cell naming its thread and value.")
      .def("svg", &tv_svg, "An SVG drawing of the tile, coloured by thread.");

  // The operations take a Layout or its CuTe text wherever CuTe takes a layout.
  const auto unary = [&](const char* name, Layout (*f)(const Layout&), const char* doc) {
    m.def(name, [f](py::object a) { return f(to_layout(a)); }, py::arg("layout"), doc);
    layout.def(name, [f](const Layout& a) { return f(a); }, doc);
  };
  unary("coalesce", static_cast<Layout (*)(const Layout&)>(&coalesce), "Fewest modes, the same function.");
  unary("right_inverse", &right_inverse, "R with L(R(i)) == i on R's domain.");
  unary("left_inverse", &left_inverse, "R with R(L(i)) == i.");
  unary("filter", &filter, "Coalesced, without the stride-0 and size-1 modes.");
  unary("flatten", static_cast<Layout (*)(const Layout&)>(&flatten), "Every leaf a top-level mode.");

  m.def("composition", [](py::object a, py::object b) {
    if (py::isinstance<py::tuple>(b) || py::isinstance<py::list>(b) ||
        (py::isinstance<py::str>(b) && b.cast<std::string>().rfind('<', 0) == 0))
      return composition(to_layout(a), to_tiler(b));
    return composition(to_layout(a), to_layout(b));
  }, py::arg("a"), py::arg("b"), "A o B: R(c) == A(B(c)); B may be a by-mode tiler.");
  m.def("complement", [](py::object a, py::object cotarget) {
    if (cotarget.is_none()) return complement(to_layout(a));
    return complement(to_layout(a), to_int_tuple(cotarget, "complement cotarget").leaf());
  }, py::arg("layout"), py::arg("cotarget") = py::none(), "The indices A does not reach, up to cotarget.");

  using TilerOp = Layout (*)(const Layout&, const Tiler&);
  const std::pair<const char*, TilerOp> tiler_ops[] = {
      {"logical_divide", &logical_divide}, {"zipped_divide", &zipped_divide}, {"tiled_divide", &tiled_divide},
      {"flat_divide", &flat_divide},       {"logical_product", &logical_product}, {"zipped_product", &zipped_product},
      {"tiled_product", &tiled_product},   {"flat_product", &flat_product}};
  for (const auto& [name, f] : tiler_ops) {
    m.def(name, [f = f](py::object a, py::object tiler) { return f(to_layout(a), to_tiler(tiler)); },
          py::arg("layout"), py::arg("tiler"));
  }
  m.def("blocked_product", [](py::object a, py::object b) { return blocked_product(to_layout(a), to_layout(b)); },
        py::arg("block"), py::arg("tiler"));
  m.def("raked_product", [](py::object a, py::object b) { return raked_product(to_layout(a), to_layout(b)); },
        py::arg("block"), py::arg("tiler"));
  m.def("make_layout_tv", [](py::object thr, py::object val) { return make_layout_tv(to_layout(thr), to_layout(val)); },
        py::arg("thr"), py::arg("val"), "CuTe's make_layout_tv: ((thread),(value)) -> tile index, with its tiler.");

  m.def("size", [](py::object l) { return from_int_tuple(size(to_layout(l))); }, py::arg("layout"));
  m.def("cosize", [](py::object l) { return from_int_tuple(cosize(to_layout(l))); }, py::arg("layout"));
  m.def("rank", [](py::object l) { return rank(to_layout(l)); }, py::arg("layout"));
  m.def("depth", [](py::object l) { return depth(to_layout(l)); }, py::arg("layout"));
  m.def("shape", [](py::object l) { return from_int_tuple(to_layout(l).shape()); }, py::arg("layout"));
  m.def("stride", [](py::object l) { return from_int_tuple(to_layout(l).stride()); }, py::arg("layout"));
  m.def("calculate", &calculate, py::arg("expression"),
        "`tessel layout`'s calculator: one expression in CuTe notation in, its value printed.");
}

}  // namespace tessel::python
