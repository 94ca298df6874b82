// app/scene/readout.cpp — the value under the cursor (app/scene/readout.hpp).
#include "app/scene/readout.hpp"

#include "interop/error.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace lab::readout {

long long element_offset(const Source& source, int frame, int x, int y, int channel) {
  return frame * source.frame_stride + y * source.row_stride + x * source.column_stride +
         channel * source.channel_stride;
}

namespace {

template <class T>
T load(const unsigned char* bytes) {
  T value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

double half_value(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1f) return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

}  // namespace

double element_value(ElementType type, const unsigned char* bytes) {
  switch (type) {
    case ElementType::U8:
      return bytes[0];
    case ElementType::I8:
      return load<int8_t>(bytes);
    case ElementType::Bool:
      return bytes[0] != 0 ? 1.0 : 0.0;
    case ElementType::F16:
      return half_value(load<uint16_t>(bytes));
    case ElementType::BF16: {
      const uint32_t bits = static_cast<uint32_t>(load<uint16_t>(bytes)) << 16;
      return load<float>(reinterpret_cast<const unsigned char*>(&bits));
    }
    case ElementType::I16:
      return load<int16_t>(bytes);
    case ElementType::U16:
      return load<uint16_t>(bytes);
    case ElementType::F32:
      return load<float>(bytes);
    case ElementType::I32:
      return load<int32_t>(bytes);
    case ElementType::U32:
      return load<uint32_t>(bytes);
    default:
      return load<double>(bytes);
  }
}

namespace {

std::string format_value(ElementType type, double value) {
  char text[48];
  if (type == ElementType::Bool) return value != 0.0 ? "True" : "False";
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  const bool is_float = type == ElementType::F16 || type == ElementType::BF16 || type == ElementType::F32 ||
                        type == ElementType::F64;
  if (!is_float)
    std::snprintf(text, sizeof text, "%.0f", value);
  else
    std::snprintf(text, sizeof text, type == ElementType::F64 ? "%.10g" : "%.7g", value);
  return text;
}

}  // namespace

std::string format_readout(int x, int y, ElementType type, const double* values, int channels) {
  std::string line = "x " + std::to_string(x) + "  y " + std::to_string(y) + "  ";
  if (channels == 1) return line + format_value(type, values[0]);
  line += "(";
  for (int c = 0; c < channels; ++c) line += (c ? ", " : "") + format_value(type, values[c]);
  return line + ")";
}

std::array<double, 4> read_values(const Source& source, int frame, int x, int y) {
  if (source.data == nullptr) throw std::runtime_error("the picture shown has no array to read");
  if (x < 0 || y < 0 || x >= source.width || y >= source.height || frame < 0 || frame >= source.frames)
    throw std::runtime_error("pixel (" + std::to_string(x) + ", " + std::to_string(y) + ") is outside the " +
                             std::to_string(source.width) + "x" + std::to_string(source.height) + " picture");
  const int size = element_bytes(source.type);
  std::array<unsigned char, 32> raw{};
  const auto copy = [&](unsigned char* to, long long offset, size_t bytes) {
    if (source.on_device)
      INTEROP_CUDA_CHECK(cudaMemcpy(to, source.data + offset, bytes, cudaMemcpyDeviceToHost));
    else
      std::memcpy(to, source.data + offset, bytes);
  };
  if (source.channels == 1 || source.channel_stride == size)
    copy(raw.data(), element_offset(source, frame, x, y, 0), static_cast<size_t>(size) * source.channels);
  else
    for (int c = 0; c < source.channels; ++c)
      copy(raw.data() + c * size, element_offset(source, frame, x, y, c), static_cast<size_t>(size));
  std::array<double, 4> values{};
  for (int c = 0; c < source.channels; ++c)
    values[static_cast<size_t>(c)] = element_value(source.type, raw.data() + c * size);
  return values;
}

std::string read_out(const Source& source, int frame, int x, int y) {
  const std::string where = "x " + std::to_string(x) + "  y " + std::to_string(y);
  if (source.data == nullptr || x >= source.width || y >= source.height) return where;
  try {
    const std::array<double, 4> values = read_values(source, frame, x, y);
    return format_readout(x, y, source.type, values.data(), source.channels);
  } catch (const std::exception& error) {
    return where + "  (unreadable: " + error.what() + ")";
  }
}

}  // namespace lab::readout
