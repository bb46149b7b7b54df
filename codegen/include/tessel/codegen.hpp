// codegen.hpp: everything of tessel's PTX code generator (the IR, the builder, the instruction
// families, the printer).
#pragma once

#include "tessel/codegen/builder.hpp"
#include "tessel/codegen/ir.hpp"
#include "tessel/codegen/legalize.hpp"
#include "tessel/codegen/ptx.hpp"
#include "tessel/codegen/types.hpp"
