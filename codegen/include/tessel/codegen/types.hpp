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

}  // namespace tessel::codegen
