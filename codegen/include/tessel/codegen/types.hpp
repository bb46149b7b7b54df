// types.hpp: the PTX value types, state spaces and register classes of tessel's kernel IR.
#pragma once

#include <cstdint>
#include <string>

namespace tessel::codegen {

// The PTX fundamental types an IR value or instruction can have. TF32, E4M3 and E5M2 only
// name instruction operand formats (wgmma, cvt); their values live in b32 registers.
enum class Type : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  BF16,
  F16x2,
  BF16x2,
  TF32,
  E4M3,
  E5M2,
  F32,
  F64,
};

// PTX state spaces.
enum class Space : uint8_t { None, Generic, Global, Shared, SharedCluster, Param, Local, Const };

// Register classes: what a `.reg` line declares. 8- and 16-bit scalars share the b16 class (PTX
// loads 8-bit values into 16-bit registers); packed pairs and tf32/fp8 data live in b32 registers.
enum class RegClass : uint8_t { Pred, B16, B32, B64, F32, F64 };

int bits(Type t);                          // 1 for pred, 0 for None
int bytes(Type t);                         // bits / 8, at least 1 for non-pred types
const char* ptx_name(Type t);              // "f32", "bf16x2", "e4m3" (as in instruction suffixes)
const char* ptx_name(Space s);             // "global", "shared::cta", "shared::cluster", ...
const char* short_name(Space s);           // "global", "shared", ... (the ld/st/cvta spelling)
RegClass reg_class(Type t);                // throws for None
const char* reg_prefix(RegClass c);        // "%p", "%rs", "%r", "%rd", "%f", "%fd"
const char* ptx_name(RegClass c);          // "pred", "b16", "b32", "b64", "f32", "f64"
bool is_float(Type t);                     // f16, bf16, their pairs, tf32, fp8, f32, f64
bool is_signed(Type t);                    // s8..s64
bool is_integer(Type t);                   // b/u/s of any width
Type bits_type(int bits);                  // b16, b32, b64 (b8 for 8)
Type parse_type(const std::string& name);  // "f32" -> F32; throws naming the valid ones

// The questions above that the builder asks for every instruction, inline (out of line they were
// a few percent of generation).
inline int bits(Type t) {
  switch (t) {
    case Type::None:
      return 0;
    case Type::Pred:
      return 1;
    case Type::B8:
    case Type::U8:
    case Type::S8:
    case Type::E4M3:
    case Type::E5M2:
      return 8;
    case Type::B16:
    case Type::U16:
    case Type::S16:
    case Type::F16:
    case Type::BF16:
      return 16;
    case Type::B32:
    case Type::U32:
    case Type::S32:
    case Type::F16x2:
    case Type::BF16x2:
    case Type::TF32:
    case Type::F32:
      return 32;
    case Type::B64:
    case Type::U64:
    case Type::S64:
    case Type::F64:
      return 64;
  }
  return 0;
}

inline int bytes(Type t) { return bits(t) <= 8 ? 1 : bits(t) / 8; }

[[noreturn]] void no_register_class();  // reg_class's refusal

inline RegClass reg_class(Type t) {
  switch (t) {
    case Type::Pred:
      return RegClass::Pred;
    case Type::B8:
    case Type::U8:
    case Type::S8:
    case Type::B16:
    case Type::U16:
    case Type::S16:
    case Type::F16:
    case Type::BF16:
      return RegClass::B16;
    case Type::B32:
    case Type::U32:
    case Type::S32:
    case Type::F16x2:
    case Type::BF16x2:
    case Type::TF32:
    case Type::E4M3:
    case Type::E5M2:
      return RegClass::B32;
    case Type::B64:
    case Type::U64:
    case Type::S64:
      return RegClass::B64;
    case Type::F32:
      return RegClass::F32;
    case Type::F64:
      return RegClass::F64;
    case Type::None:
      break;
  }
  no_register_class();
}

inline bool is_float(Type t) {
  switch (t) {
    case Type::F16:
    case Type::BF16:
    case Type::F16x2:
    case Type::BF16x2:
    case Type::TF32:
    case Type::E4M3:
    case Type::E5M2:
    case Type::F32:
    case Type::F64:
      return true;
    default:
      return false;
  }
}

inline bool is_signed(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }

inline bool is_integer(Type t) { return t != Type::None && t != Type::Pred && !is_float(t); }

}  // namespace tessel::codegen
