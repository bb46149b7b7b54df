// print.cpp: the PTX module printer: header directives from the module's requirements, shared
// arrays, kernel signatures with their performance directives, derived `.reg` lines and the
// legalized instruction list. Register names are class prefix + counter (see RegInfo).
#include <charconv>
#include <concepts>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include "tessel/algebra/error.hpp"
#include "tessel/codegen/legalize.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::codegen {

std::string ptx_version_string(int ptx) { return std::to_string(ptx / 10) + "." + std::to_string(ptx % 10); }

namespace {

// Appends to one string (an ostringstream spends most of the printer's time in locale and
// sentry machinery; this is a third of it).
struct Out {
  std::string s;
  Out& operator<<(const std::string& x) {
    s += x;
    return *this;
  }
  Out& operator<<(const char* x) {
    s += x;
    return *this;
  }
  Out& operator<<(char x) {
    s += x;
    return *this;
  }
  template <std::integral T>
  Out& operator<<(T x) {
    s += std::to_string(x);
    return *this;
  }
};

// Writes each operand straight into the output: building a string per operand and per register
// name (and concatenating them) was most of the printer's time and allocations (callgrind).
struct Printer {
  const Kernel& k;
  Out& os;
  // Every register's name (`%rd12`), spelled once per kernel by print_kernel (a kernel names its
  // registers many times); empty for one instruction alone (print_instr), spelled as it goes.
  struct RegName {
    char text[15];
    uint8_t size;
  };
  std::vector<RegName> names;

  void spell_register_names() {
    names.resize(k.regs.size());
    for (size_t id = 0; id < k.regs.size(); ++id) {
      const RegInfo& r = k.regs[id];
      RegName& n = names[id];
      const char* prefix = reg_prefix(r.cls);
      const size_t len = std::strlen(prefix);
      if (len > 4) fail(std::string("codegen: register prefix ") + prefix + " longer than the printer's table allows");
      std::memcpy(n.text, prefix, len);
      auto [end, ec] = std::to_chars(n.text + len, n.text + sizeof n.text, r.index);
      if (ec != std::errc()) fail("codegen: register number " + std::to_string(r.index) + " too long to print");
      n.size = static_cast<uint8_t>(end - n.text);
    }
  }

  void number(int64_t v) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    os.s.append(buf, static_cast<size_t>(end - buf));
  }

  void reg(int id) {
    if (!names.empty()) {
      const RegName& n = names.at(static_cast<size_t>(id));
      os.s.append(n.text, n.size);
      return;
    }
    const RegInfo& r = k.regs.at(static_cast<size_t>(id));
    os.s += reg_prefix(r.cls);
    number(r.index);
  }

  void operand(const Operand& o) {
    switch (o.kind) {
      case Operand::Kind::None:
        return;
      case Operand::Kind::Reg:
        reg(o.reg);
        return;
      case Operand::Kind::Imm:
        number(o.imm);
        return;
      case Operand::Kind::FImm: {
        char buf[24];
        if (o.type == Type::F32) {
          std::snprintf(buf, sizeof buf, "0f%08X", static_cast<unsigned>(o.imm & 0xffffffffu));
        } else {
          std::snprintf(buf, sizeof buf, "0d%016llX", static_cast<unsigned long long>(o.imm));
        }
        os.s += buf;
        return;
      }
      case Operand::Kind::Special:
      case Operand::Kind::Symbol:
      case Operand::Kind::Label:
        os.s += o.name;
        return;
      case Operand::Kind::Sink:
        os.s += '_';
        return;
      case Operand::Kind::Pair:
        operand(o.elems.at(0));
        os.s += '|';
        operand(o.elems.at(1));
        return;
      case Operand::Kind::Vec:
        os.s += '{';
        for (size_t j = 0; j < o.elems.size(); ++j) {
          if (j) os.s += ", ";
          operand(o.elems[j]);
        }
        os.s += '}';
        return;
      case Operand::Kind::Addr:
        // [base], [base+off], or the tensor form [tensorMap, {c0, c1}].
        os.s += '[';
        operand(o.elems.at(0));
        if (o.elems.size() > 1) {
          os.s += ", ";
          operand(o.elems[1]);
        } else if (o.imm != 0) {
          os.s += '+';
          number(o.imm);
        }
        os.s += ']';
        return;
    }
  }

  void instr(const Instr& i, bool comments) {
    if (comments && !i.comment.empty()) os << "\t// " << i.comment << "\n";
    if (i.op == Op::Label) {
      os << i.ops.at(0).name << ":\n";
      return;
    }
    os << "\t";
    if (i.guard >= 0) {
      os << "@" << (i.guard_negated ? "!" : "");
      reg(i.guard);
      os << " ";
    }
    append_mnemonic(os.s, i);
    for (size_t j = 0; j < i.ops.size(); ++j) {
      os << (j ? ", " : " \t");
      operand(i.ops[j]);
    }
    os << ";\n";
  }
};

std::string dims(const std::array<int, 3>& d) {
  return std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]);
}

void print_kernel(const Kernel& k, Out& os, const PrintOptions& o) {
  os << "\n\t// .globl\t" << k.name << "\n";
  os << ".visible .entry " << k.name << "(";
  for (size_t j = 0; j < k.params.size(); ++j) {
    const Param& p = k.params[j];
    os << (j ? ",\n" : "\n") << "\t.param ";
    switch (p.kind) {
      case Param::Kind::Scalar:
        os << "." << ptx_name(p.type) << " " << p.name;
        break;
      case Param::Kind::Pointer:
        os << ".u64 " << p.name;
        break;
      case Param::Kind::TensorMap:
        os << ".align 64 .b8 " << p.name << "[128]";
        break;
    }
  }
  os << (k.params.empty() ? ")\n" : "\n)\n");
  if (k.reqntid) os << ".reqntid " << dims(*k.reqntid) << "\n";
  if (k.maxntid) os << ".maxntid " << dims(*k.maxntid) << "\n";
  if (k.minnctapersm > 0) os << ".minnctapersm " << k.minnctapersm << "\n";
  if (k.cluster_dims) os << ".reqnctapercluster " << dims(*k.cluster_dims) << "\n";
  os << "{\n";
  // One `.reg` line per class in use, declaring %x<n+1> for registers numbered 1..n.
  int count[6] = {};
  for (const RegInfo& r : k.regs) count[static_cast<int>(r.cls)] = std::max(count[static_cast<int>(r.cls)], r.index);
  for (int c = 0; c < 6; ++c) {
    if (count[c] == 0) continue;
    RegClass rc = static_cast<RegClass>(c);
    os << "\t.reg ." << ptx_name(rc) << " \t" << reg_prefix(rc) << "<" << count[c] + 1 << ">;\n";
  }
  os << "\n";
  // The output grows by about a line per instruction; reserving spares most of its copies.
  os.s.reserve(os.s.size() + 48 * k.regs.size() + 4096);
  Printer pr{k, os, {}};
  pr.spell_register_names();
  for_each_legalized(k, [&](const Instr& i) { pr.instr(i, o.comments); });
  os << "}\n";
}

}  // namespace

std::string print_instr(const Kernel& k, const Instr& i) {
  if (i.op == Op::Label) return i.ops.at(0).name + ":";
  Out os;
  Printer{k, os, {}}.instr(i, false);
  // Drop the leading tab, the tab before the operands and the trailing ";\n".
  std::string s = os.s.substr(1, os.s.size() - 3);
  const size_t tab = s.find('\t');
  if (tab != std::string::npos) s.erase(tab, 1);
  return s;
}

std::string print_ptx(const Module& m, const PrintOptions& o) {
  if (m.kernels.empty()) fail("codegen: a module needs at least one kernel");
  const Requirement r = requirement(m);
  Out os;
  os.s.reserve(4096);
  os << "//\n// Generated by " << o.generator << "\n//\n\n";
  os << ".version " << ptx_version_string(r.ptx) << "\n";
  os << ".target " << target_name(r) << "\n";
  os << ".address_size 64\n";
  std::set<std::string> names;
  for (const Kernel& k : m.kernels) {
    if (!names.insert(k.name).second) fail("codegen: two kernels named " + k.name + " in one module");
  }
  // Shared arrays live at module scope; their names must not collide across kernels.
  std::set<std::string> shared;
  for (const Kernel& k : m.kernels) {
    for (const SharedAlloc& a : k.shared) {
      if (!shared.insert(a.name).second)
        fail("codegen: shared array " + a.name + " declared by two kernels of one module");
      if (a.dynamic) {
        os << "\n.extern .shared .align " << a.align << " .b8 " << a.name << "[];";
      } else {
        os << "\n.shared .align " << a.align << " .b8 " << a.name << "[" << a.bytes << "];";
      }
    }
  }
  if (!shared.empty()) os << "\n";
  for (const Kernel& k : m.kernels) print_kernel(k, os, o);
  return std::move(os.s);
}

}  // namespace tessel::codegen
