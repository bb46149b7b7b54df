// algebra.hpp: the whole of tessel's layout algebra, for users who link tessel::algebra.
#pragma once

#include "tessel/algebra/calculator.hpp"
#include "tessel/algebra/error.hpp"
#include "tessel/algebra/int.hpp"
#include "tessel/algebra/int_tuple.hpp"
#include "tessel/algebra/layout.hpp"
#include "tessel/algebra/notation.hpp"
#include "tessel/algebra/parse_number.hpp"
#include "tessel/algebra/picture.hpp"
#include "tessel/algebra/swizzle.hpp"
