// print.cpp: the PTX module printer: header directives from the module's requirements, shared
// arrays, kernel signatures with their performance directives, derived `.reg` lines and the
// legalized instruction list. Register names are class prefix + counter (see RegInfo).
#include <algorithm>
#include <charconv>
#include <concepts>
#include <memory>
#include <cstdio>
#include <cstddef>
#include <cstring>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "flatten.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/codegen/legalize.hpp"
#include "tessel/codegen/ptx.hpp"

namespace tessel::codegen {

std::string ptx_version_string(int ptx) { return std::to_string(ptx / 10) + "." + std::to_string(ptx % 10); }

namespace {

// Writes into one buffer through a cursor: `cap` bytes of room, `n` written so far. Each write
// checks the room and copies, where std::string's append also sets the length and a terminator
// every time (an ostringstream spent most of the printer's time in locale and sentry machinery;
// the appends were a third of what was left). The buffer is not a std::string: growing one
// zero-fills its new room, a tenth of the printer; text() copies the bytes out once.
struct Out {
  std::unique_ptr<char[]> buf;
  size_t cap = 0;
  size_t n = 0;

  // At least k bytes of room after n (the buffer grows ahead of the writes).
  [[gnu::always_inline]] void room(size_t k) {
    if (cap - n < k) grow(k);
  }
  void grow(size_t k) {
    const size_t c = std::max(2 * cap, n + k + 4096);
    std::unique_ptr<char[]> b(new char[c]);  // uninitialized: every byte up to n is written before it is read
    if (n) std::memcpy(b.get(), buf.get(), n);
    buf = std::move(b);
    cap = c;
  }
  char* at() { return buf.get() + n; }
  void put(const char* x, size_t k) {
    room(k);
    std::memcpy(at(), x, k);
    n += k;
  }
  // A string literal: its length is known here, so the copy is a few moves, not a call.
  template <size_t N>
  [[gnu::always_inline]] void lit(const char (&x)[N]) {
    room(N - 1);
    std::memcpy(at(), x, N - 1);
    n += N - 1;
  }
  [[gnu::always_inline]] void put(char c) {
    room(1);
    buf[n++] = c;
  }
  std::string_view view() const { return {buf.get(), n}; }
  Out& operator<<(const std::string& x) {
    put(x.data(), x.size());
    return *this;
  }
  Out& operator<<(const char* x) {
    put(x, std::strlen(x));
    return *this;
  }
  Out& operator<<(char x) {
    put(x);
    return *this;
  }
  template <std::integral T>
  Out& operator<<(T x) {
    room(24);
    n = static_cast<size_t>(std::to_chars(at(), at() + 24, x).ptr - buf.get());
    return *this;
  }
};

// Each distinct mnemonic of a kernel spelled once: an instruction's mnemonic depends on its
// fields other than operands, guard and comment, and a kernel has some hundred distinct ones
// among thousands of instructions. Spelling one (append_mnemonic) took a quarter of the printer.
// The instruction's own requirement (op_requirement) reads a subset of the same fields, so it
// too is taken once per distinct key: raised into `requirement` when the key is first seen.
class MnemonicCache {
 public:
  Requirement requirement;

  // The mnemonic of i, spelled on first sight of its fields; the 16 bytes after it are readable.
  std::string_view get(const Instr& i) {
    const Key k = key(i);
    // 1,024 slots, at most a quarter taken: a GEMM kernel has some hundreds of keys, and at half
    // taken a lookup (one per instruction) probed 1.6 slots on average; now about 1.2.
    if (slots_.empty()) slots_.assign(1024, Slot{});
    size_t mask = slots_.size() - 1, j = hash(k) & mask;
    while (slots_[j].len != kFree) {
      if (slots_[j].key == k) return {text_.data() + slots_[j].at, slots_[j].len};
      j = (j + 1) & mask;
    }
    if (4 * (taken_ + 1) > slots_.size()) {  // at most a quarter taken
      grow();
      mask = slots_.size() - 1;
      j = hash(k) & mask;
      while (slots_[j].len != kFree) j = (j + 1) & mask;
    }
    requirement = raise(requirement, op_requirement(i));
    const size_t at = text_.size();
    append_mnemonic(text_, i);
    const size_t len = text_.size() - at;
    text_.append(16, '\0');  // each entry may be read 16 bytes at a time (Printer::instr)
    slots_[j] = Slot{k, static_cast<uint32_t>(at), static_cast<uint32_t>(len)};
    ++taken_;
    return {text_.data() + at, len};
  }

 private:
  // The fields append_mnemonic reads (mnemonic.cpp says which, and points here), packed.
  struct Key {
    uint64_t a = 0, b = 0, c = 0;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct Slot {
    Key key;
    uint32_t at = 0, len = kFree;
  };
  static constexpr uint32_t kFree = ~0u;
  // Instr's first 20 bytes are exactly these fields, without padding (checked below): the key is
  // those bytes, three loads (packing each field was a tenth of the printer's own instructions).
  static Key key(const Instr& i) {
    static_assert(offsetof(Instr, op) == 0 && offsetof(Instr, type) == 1 && offsetof(Instr, type2) == 2 &&
                      offsetof(Instr, type3) == 3 && offsetof(Instr, type4) == 4 && offsetof(Instr, space) == 5 &&
                      offsetof(Instr, vec) == 6 && offsetof(Instr, cmp) == 7 && offsetof(Instr, rnd) == 8 &&
                      offsetof(Instr, cache) == 9 && offsetof(Instr, atom) == 10 && offsetof(Instr, shfl) == 11 &&
                      offsetof(Instr, flags) == 12 && offsetof(Instr, n) == 16,
                  "the mnemonic key reads Instr's fields op .. n as its first 20 bytes");
    Key k;
    std::memcpy(&k.a, &i, 8);  // op, type, type2, type3, type4, space, vec, cmp
    std::memcpy(&k.b, reinterpret_cast<const char*>(&i) + 8, 8);  // rnd, cache, atom, shfl, flags
    uint32_t n;
    std::memcpy(&n, reinterpret_cast<const char*>(&i) + 16, 4);  // n
    k.c = n;
    return k;
  }
  static size_t hash(const Key& k) {
    uint64_t h = (k.a ^ (k.b * 0xff51afd7ed558ccdull) ^ (k.c * 0x9e3779b97f4a7c15ull)) * 0xc4ceb9fe1a85ec53ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(2 * old.size(), Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.len == kFree) continue;
      size_t j = hash(s.key) & mask;
      while (slots_[j].len != kFree) j = (j + 1) & mask;
      slots_[j] = s;
    }
  }
  std::vector<Slot> slots_;
  size_t taken_ = 0;
  std::string text_;
};

// Writes each operand straight into the output: building a string per operand and per register
// name (and concatenating them) was most of the printer's time and allocations (callgrind).
struct Printer {
  const Kernel& k;
  Out& os;
  // Register names (`%rd12`), by class and index: the thread's names of each class, spelled
  // once per thread (kernels number each class's registers alike from 1) and read in place, set
  // by spell_register_names (print_kernel). Copying each kernel's names into a table by register
  // id (a tenth of the printer, before) cost more than the lookup of a register's class and index
  // where it is printed. Unset for one instruction alone (print_instr): spelled as it goes.
  struct RegName {
    char text[15];
    uint8_t size;
  };
  static constexpr int kClasses = 6;
  const RegName* class_names[kClasses] = {};
  bool named = false;
  MnemonicCache mnemonics;
  // k.regs.data(), read once: through k, the vector's start was reloaded after every write of the
  // line (a char store may alias anything), at every register the printer spells.
  const RegInfo* const regs = k.regs.data();

  // The register `index` of the class whose prefix (`%rd`, in n's place) is `prefix`, spelled
  // into n.
  static void spell(RegName& n, const RegName& prefix, int index) {
    n = prefix;
    auto [end, ec] = std::to_chars(n.text + prefix.size, n.text + sizeof n.text, index);
    if (ec != std::errc()) fail("codegen: register number " + std::to_string(index) + " too long to print");
    n.size = static_cast<uint8_t>(end - n.text);
  }

  // The highest register index of each class, and whether every index is one the names below
  // are spelled for (kCached): one walk over the kernel's registers, checking each one's class,
  // for the `.reg` lines and for spell_register_names.
  static constexpr int kCached = 1 << 16;
  struct RegisterCounts {
    int top[kClasses] = {};
    bool cached = true;  // else every name is spelled as it comes (reg()), as for one instruction
  };
  static RegisterCounts count_registers(const Kernel& k) {
    RegisterCounts n;
    for (const RegInfo& r : k.regs) {
      const auto c = static_cast<size_t>(r.cls);
      if (c >= kClasses) fail("codegen: register class " + std::to_string(c) + " outside the printer's table");
      if (r.index < 0 || r.index >= kCached) n.cached = false;
      n.top[c] = std::max(n.top[c], r.index);
    }
    return n;
  }

  void spell_register_names(const RegisterCounts& counts) {
    if (!counts.cached) return;
    const int* top = counts.top;
    // Each class's names up to its highest, spelled where this thread has not yet.
    thread_local std::vector<RegName> spelled[kClasses];  // [class][index]
    for (int c = 0; c < kClasses; ++c) {
      std::vector<RegName>& cache = spelled[c];
      if (cache.size() <= static_cast<size_t>(top[c])) {
        const char* prefix_text = reg_prefix(static_cast<RegClass>(c));
        const size_t len = std::strlen(prefix_text);
        if (len > 4)
          fail(std::string("codegen: register prefix ") + prefix_text + " longer than the printer's table allows");
        RegName prefix = {};
        std::memcpy(prefix.text, prefix_text, len);
        prefix.size = static_cast<uint8_t>(len);
        while (cache.size() <= static_cast<size_t>(top[c])) {
          const auto x = static_cast<int>(cache.size());
          spell(cache.emplace_back(), prefix, x);
        }
      }
      class_names[c] = cache.data();
    }
    named = true;
  }

  // An instruction's line is written through a local cursor into room made for the whole line
  // ahead (bound() per operand): the compiler keeps the cursor in a register, where writes
  // through Out's members reloaded them after every copy (a char store may alias them) and
  // checked the room each time, a tenth of the printer.

  // The most bytes operand o prints as.
  size_t bound(const Operand& o) const {
    switch (o.kind) {
      case Operand::Kind::None:
        return 0;
      case Operand::Kind::Reg:
        return 16;  // copied as 16 bytes
      case Operand::Kind::Imm:
      case Operand::Kind::FImm:
        return 24;
      case Operand::Kind::Special:
      case Operand::Kind::Symbol:
      case Operand::Kind::Label:
        return o.name.str().size();
      case Operand::Kind::Sink:
        return 1;
      case Operand::Kind::Pair:
      case Operand::Kind::Vec:
      case Operand::Kind::Addr: {  // brackets, separators and an Addr's offset
        size_t b = 2 + 24;
        for (const Operand& e : o.elems) b += 2 + bound(e);
        return b;
      }
    }
    return 0;
  }

  template <size_t N>
  [[gnu::always_inline]] static char* lit(char* p, const char (&x)[N]) {
    std::memcpy(p, x, N - 1);
    return p + N - 1;
  }
  // Most immediates are one or two digits (shift amounts, masks, vector offsets: 80% of a GEMM's),
  // written here; std::to_chars's length search and its call cost several times their digits.
  [[gnu::always_inline]] static char* number(char* p, int64_t v) {
    if (static_cast<uint64_t>(v) < 10) {
      *p = static_cast<char>('0' + v);
      return p + 1;
    }
    if (static_cast<uint64_t>(v) < 100) {
      p[0] = static_cast<char>('0' + v / 10);
      p[1] = static_cast<char>('0' + v % 10);
      return p + 2;
    }
    return std::to_chars(p, p + 24, v).ptr;
  }
  static char* text(char* p, const std::string& x) {
    std::memcpy(p, x.data(), x.size());
    return p + x.size();
  }

  [[gnu::always_inline]] char* reg(char* p, int id) const {
    if (named) [[likely]] {
      // Read without at(): with the names spelled, the printer is walking a kernel, and the walk
      // (flatten.hpp) checked each register of an instruction before handing it over.
      const RegInfo& r = regs[id];
      const RegName& n = class_names[static_cast<size_t>(r.cls)][r.index];
      static_assert(sizeof(RegName) == 16, "a register name is copied as 16 bytes");
      std::memcpy(p, &n, 16);
      return p + n.size;
    }
    const RegInfo& r = k.regs.at(static_cast<size_t>(id));
    const char* prefix = reg_prefix(r.cls);
    const size_t len = std::strlen(prefix);
    std::memcpy(p, prefix, len);
    return number(p + len, r.index);
  }

  char* operand(char* p, const Operand& o) const {
    switch (o.kind) {
      case Operand::Kind::None:
        return p;
      case Operand::Kind::Reg:
        return reg(p, o.reg);
      case Operand::Kind::Imm:
        return number(p, o.imm);
      case Operand::Kind::FImm:
        if (o.type == Type::F32) return p + std::snprintf(p, 24, "0f%08X", static_cast<unsigned>(o.imm & 0xffffffffu));
        return p + std::snprintf(p, 24, "0d%016llX", static_cast<unsigned long long>(o.imm));
      case Operand::Kind::Special:
      case Operand::Kind::Symbol:
      case Operand::Kind::Label:
        return text(p, o.name.str());
      case Operand::Kind::Sink:
        *p = '_';
        return p + 1;
      case Operand::Kind::Pair:
        p = operand(p, o.elems.at(0));
        *p++ = '|';
        return operand(p, o.elems.at(1));
      case Operand::Kind::Vec:
        *p++ = '{';
        for (size_t j = 0; j < o.elems.size(); ++j) {
          if (j) p = lit(p, ", ");
          const Operand& e = o.elems[j];
          p = e.kind == Operand::Kind::Reg ? reg(p, e.reg) : operand(p, e);
        }
        *p = '}';
        return p + 1;
      case Operand::Kind::Addr:
        // [base], [base+off], or the tensor form [tensorMap, {c0, c1}].
        *p++ = '[';
        p = operand(p, o.elems.at(0));
        if (o.elems.size() > 1) {
          p = lit(p, ", ");
          p = operand(p, o.elems[1]);
        } else if (o.imm != 0) {
          *p++ = '+';
          p = number(p, o.imm);
        }
        *p = ']';
        return p + 1;
    }
    return p;
  }

  void instr(const Instr& i, bool comments) {
    if (comments && !i.comment.empty()) os << "\t// " << i.comment.str() << "\n";
    if (i.op == Op::Label) {
      os << i.ops.at(0).name.str();
      os.lit(":\n");
      return;
    }
    const std::string_view m = mnemonics.get(i);  // readable 16 bytes past its end
    // A tab, a guard (`@!` and a name), the mnemonic with its padding, `;\n`, and kPlain bytes
    // per operand: a separator and a register or an immediate (others make room as they come).
    constexpr size_t kPlain = 2 + 24;
    const size_t n_ops = i.ops.size();
    os.room(1 + 3 + 16 + m.size() + 16 + 2 + kPlain * n_ops);
    char* p = os.at();
    *p++ = '\t';
    if (i.guard >= 0) {
      p = i.guard_negated ? lit(p, "@!") : lit(p, "@");
      p = reg(p, i.guard);
      *p++ = ' ';
    }
    for (size_t j = 0; j < m.size(); j += 16) std::memcpy(p + j, m.data() + j, 16);
    p += m.size();
    for (size_t j = 0; j < n_ops; ++j) {
      p = j ? lit(p, ", ") : lit(p, " \t");
      const Operand& o = i.ops[j];
      if (o.kind == Operand::Kind::Reg) {  // most operands: spelled here, without operand()'s call
        p = reg(p, o.reg);
        continue;
      }
      if (o.kind == Operand::Kind::Imm) {  // most of the rest, in the room made for the line
        p = number(p, o.imm);
        continue;
      }
      if (o.kind == Operand::Kind::Addr && o.elems.size() == 1 && o.elems[0].kind == Operand::Kind::Reg) {
        // [base] or [base+offset], every load's and store's address: spelled here as operand()
        // spells it, without its calls (and bound()'s walk) for the address and its base.
        constexpr size_t kAddress = 2 + 16 + 1 + 24;  // brackets, the base, `+` and the offset
        os.n = static_cast<size_t>(p - os.buf.get());
        os.room(kAddress + 2 + kPlain * (n_ops - j));
        p = os.at();
        *p++ = '[';
        p = reg(p, o.elems[0].reg);
        if (o.imm != 0) {
          *p++ = '+';
          p = number(p, o.imm);
        }
        *p++ = ']';
        continue;
      }
      if (o.kind == Operand::Kind::Special || o.kind == Operand::Kind::Sink) [[unlikely]]
        mnemonics.requirement = raise(mnemonics.requirement, operand_requirement(o));
      os.n = static_cast<size_t>(p - os.buf.get());  // room for this one and what follows it
      os.room(bound(o) + 2 + kPlain * (n_ops - j));
      p = os.at();
      p = operand(p, o);
    }
    p = lit(p, ";\n");
    os.n = static_cast<size_t>(p - os.buf.get());
  }
};

std::string dims(const std::array<int, 3>& d) {
  return std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]);
}

// Prints k and returns its requirement (ir.hpp's requirement(k), gathered on the way).
Requirement print_kernel(const Kernel& k, Out& os, const PrintOptions& o) {
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
  const Printer::RegisterCounts counts = Printer::count_registers(k);
  for (int c = 0; c < Printer::kClasses; ++c) {
    if (counts.top[c] == 0) continue;
    RegClass rc = static_cast<RegClass>(c);
    os << "\t.reg ." << ptx_name(rc) << " \t" << reg_prefix(rc) << "<" << counts.top[c] + 1 << ">;\n";
  }
  os << "\n";
  // The output grows by about a line per instruction; room made ahead spares most of its copies.
  os.room(48 * k.regs.size() + 4096);
  Printer pr{k, os, {}, false, {}};
  pr.spell_register_names(counts);
  auto visit = [&](const Instr& i) { pr.instr(i, o.comments); };
  detail::flatten(k, visit);  // for_each_legalized, calling the printer directly
  os << "}\n";
  return raise(pr.mnemonics.requirement, kernel_floor(k));
}

}  // namespace

std::string print_instr(const Kernel& k, const Instr& i) {
  if (i.op == Op::Label) return i.ops.at(0).name + ":";
  Out os;
  Printer{k, os, {}, false, {}}.instr(i, false);
  // Drop the leading tab, the tab before the operands and the trailing ";\n".
  const std::string text(os.view());
  std::string s = text.substr(1, text.size() - 3);
  const size_t tab = s.find('\t');
  if (tab != std::string::npos) s.erase(tab, 1);
  return s;
}

std::string print_ptx(const Module& m, const PrintOptions& o) {
  if (m.kernels.empty()) fail("codegen: a module needs at least one kernel");
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
    }
  }
  // The kernels first: the header's .version and .target are the highest requirement of their
  // instructions (requirement(m)), gathered while printing them; a walk of its own over every
  // instruction cost a fifth of the printer. The header then goes in front.
  Requirement r;
  // The kernels' text goes into this thread's scratch buffer, kept from one call to the next: a
  // new one of a GEMM's size (hundreds of KB) came from mmap each time, and its page faults were
  // a tenth of the printer's time. The buffer is the largest module's text printed on the thread.
  thread_local Out scratch;
  Out body;
  body.buf = std::move(scratch.buf);
  body.cap = std::exchange(scratch.cap, 0);
  struct GiveBack {  // the buffer returns to the scratch however this call ends
    Out& from;
    Out& to;
    ~GiveBack() {
      to.buf = std::move(from.buf);
      to.cap = std::exchange(from.cap, 0);
    }
  } give_back{body, scratch};
  for (const Kernel& k : m.kernels) r = raise(r, print_kernel(k, body, o));
  Out os;
  os.room(4096);
  os << "//\n// Generated by " << o.generator << "\n//\n\n";
  os << ".version " << ptx_version_string(r.ptx) << "\n";
  os << ".target " << target_name(r) << "\n";
  os << ".address_size 64\n";
  for (const Kernel& k : m.kernels) {
    for (const SharedAlloc& a : k.shared) {
      if (a.dynamic) {
        os << "\n.extern .shared .align " << a.align << " .b8 " << a.name << "[];";
      } else {
        os << "\n.shared .align " << a.align << " .b8 " << a.name << "[" << a.bytes << "];";
      }
    }
  }
  if (!shared.empty()) os << "\n";
  std::string text;
  text.reserve(os.n + body.n);
  text.append(os.view());
  text.append(body.view());
  return text;
}

}  // namespace tessel::codegen
