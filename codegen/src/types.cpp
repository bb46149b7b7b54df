// types.cpp: names, widths and register classes of the IR's types and state spaces.
#include "tessel/codegen/types.hpp"

#include "tessel/algebra/error.hpp"

namespace tessel::codegen {

void no_register_class() { fail("codegen: a register needs a type (got none)"); }

const char* ptx_name(Type t) {
  switch (t) {
    case Type::None:
      return "";
    case Type::Pred:
      return "pred";
    case Type::B8:
      return "b8";
    case Type::B16:
      return "b16";
    case Type::B32:
      return "b32";
    case Type::B64:
      return "b64";
    case Type::U8:
      return "u8";
    case Type::U16:
      return "u16";
    case Type::U32:
      return "u32";
    case Type::U64:
      return "u64";
    case Type::S8:
      return "s8";
    case Type::S16:
      return "s16";
    case Type::S32:
      return "s32";
    case Type::S64:
      return "s64";
    case Type::F16:
      return "f16";
    case Type::BF16:
      return "bf16";
    case Type::F16x2:
      return "f16x2";
    case Type::BF16x2:
      return "bf16x2";
    case Type::TF32:
      return "tf32";
    case Type::E4M3:
      return "e4m3";
    case Type::E5M2:
      return "e5m2";
    case Type::F32:
      return "f32";
    case Type::F64:
      return "f64";
  }
  return "";
}

const char* ptx_name(Space s) {
  switch (s) {
    case Space::None:
      return "";
    case Space::Generic:
      return "";
    case Space::Global:
      return "global";
    case Space::Shared:
      return "shared::cta";
    case Space::SharedCluster:
      return "shared::cluster";
    case Space::Param:
      return "param";
    case Space::Local:
      return "local";
    case Space::Const:
      return "const";
  }
  return "";
}

const char* short_name(Space s) {
  switch (s) {
    case Space::Shared:
      return "shared";
    case Space::SharedCluster:
      return "shared::cluster";
    default:
      return ptx_name(s);
  }
}

const char* reg_prefix(RegClass c) {
  switch (c) {
    case RegClass::Pred:
      return "%p";
    case RegClass::B16:
      return "%rs";
    case RegClass::B32:
      return "%r";
    case RegClass::B64:
      return "%rd";
    case RegClass::F32:
      return "%f";
    case RegClass::F64:
      return "%fd";
  }
  return "";
}

const char* ptx_name(RegClass c) {
  switch (c) {
    case RegClass::Pred:
      return "pred";
    case RegClass::B16:
      return "b16";
    case RegClass::B32:
      return "b32";
    case RegClass::B64:
      return "b64";
    case RegClass::F32:
      return "f32";
    case RegClass::F64:
      return "f64";
  }
  return "";
}

Type bits_type(int b) {
  switch (b) {
    case 8:
      return Type::B8;
    case 16:
      return Type::B16;
    case 32:
      return Type::B32;
    case 64:
      return Type::B64;
  }
  fail("codegen: no bit type of width " + std::to_string(b) + " (8, 16, 32 or 64)");
}

Type parse_type(const std::string& name) {
  static const Type all[] = {Type::Pred, Type::B8,   Type::B16,  Type::B32,   Type::B64,    Type::U8,
                             Type::U16,  Type::U32,  Type::U64,  Type::S8,    Type::S16,    Type::S32,
                             Type::S64,  Type::F16,  Type::BF16, Type::F16x2, Type::BF16x2, Type::TF32,
                             Type::E4M3, Type::E5M2, Type::F32,  Type::F64};
  std::string valid;
  for (Type t : all) {
    if (name == ptx_name(t)) return t;
    valid += valid.empty() ? "" : ", ";
    valid += ptx_name(t);
  }
  fail("unknown type '" + name + "' (valid: " + valid + ")");
}

}  // namespace tessel::codegen
