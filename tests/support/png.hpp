#pragma once
// Test support: decode the PNGs a browser screenshot writes (8-bit RGB or RGBA,
// not interlaced) into RGB pixels, with zlib for the image data.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace cdna4::test {

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<std::array<uint8_t, 3>> pixels;  // row-major RGB
  std::array<uint8_t, 3> at(uint32_t x, uint32_t y) const { return pixels.at(size_t(y) * width + x); }
};

inline Image decode_png(const std::vector<uint8_t>& file) {
  auto fail = [](const std::string& why) { return std::runtime_error("PNG: " + why); };
  auto be32 = [&](size_t at) {
    if (at + 4 > file.size()) throw fail("truncated");
    return uint32_t(file[at]) << 24 | uint32_t(file[at + 1]) << 16 | uint32_t(file[at + 2]) << 8 | file[at + 3];
  };
  const uint8_t signature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (file.size() < 8 || !std::equal(signature, signature + 8, file.begin())) throw fail("no PNG signature");
  Image image;
  uint32_t channels = 0;
  std::vector<uint8_t> compressed;
  for (size_t at = 8;;) {
    const uint32_t length = be32(at);
    if (at + 12 + size_t(length) > file.size()) throw fail("truncated chunk");
    const std::string type(file.begin() + long(at + 4), file.begin() + long(at + 8));
    const uint8_t* data = file.data() + at + 8;
    if (type == "IHDR") {
      image.width = be32(at + 8), image.height = be32(at + 12);
      const uint8_t depth = data[8], color = data[9], interlace = data[12];
      if (depth != 8 || (color != 2 && color != 6) || interlace != 0)
        throw fail("only 8-bit RGB / RGBA, not interlaced, is decoded");
      channels = color == 2 ? 3 : 4;
    } else if (type == "IDAT") {
      compressed.insert(compressed.end(), data, data + length);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + size_t(length);
  }
  if (channels == 0 || image.width == 0 || image.height == 0) throw fail("no image header");
  const size_t stride = size_t(image.width) * channels;
  std::vector<uint8_t> raw(size_t(image.height) * (stride + 1));
  uLongf raw_size = uLongf(raw.size());
  if (uncompress(raw.data(), &raw_size, compressed.data(), uLong(compressed.size())) != Z_OK || raw_size != raw.size())
    throw fail("bad image data");

  // Undo the per-row filters (PNG spec 9.2); `previous` is the unfiltered row above.
  std::vector<uint8_t> row(stride), previous(stride, 0);
  image.pixels.reserve(size_t(image.width) * image.height);
  for (uint32_t y = 0; y < image.height; ++y) {
    const uint8_t* in = raw.data() + size_t(y) * (stride + 1);
    const uint8_t filter = in[0];
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= channels ? row[i - channels] : 0, b = previous[i],
                c = i >= channels ? previous[i - channels] : 0;
      int predicted = 0;
      switch (filter) {
        case 0: predicted = 0; break;
        case 1: predicted = a; break;
        case 2: predicted = b; break;
        case 3: predicted = (a + b) / 2; break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default: throw fail("unknown row filter " + std::to_string(filter));
      }
      row[i] = uint8_t(in[1 + i] + predicted);
    }
    for (size_t x = 0; x < image.width; ++x)
      image.pixels.push_back({row[x * channels], row[x * channels + 1], row[x * channels + 2]});
    previous.swap(row);
  }
  return image;
}

}  // namespace cdna4::test
