// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/event_store/mjpeg_avi.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
}

namespace yolo::daemon {

namespace {

// FFmpeg 7 (libavformat 61) made the buffer a write callback gets const.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using WriteBuffer = const std::uint8_t*;
#else
using WriteBuffer = std::uint8_t*;
#endif

// The file in memory, seekable, so that the AVI muxer can go back and fill in its header's frame
// counts and write its index, as it does on a real file.
struct Memory {
  std::string bytes;
  std::size_t position = 0;
};

int write(void* opaque, WriteBuffer buffer, int size) {
  auto& m = *static_cast<Memory*>(opaque);
  const auto n = static_cast<std::size_t>(size);
  if (m.bytes.size() < m.position + n) m.bytes.resize(m.position + n);
  std::memcpy(m.bytes.data() + m.position, buffer, n);
  m.position += n;
  return size;
}

std::int64_t seek(void* opaque, std::int64_t offset, int whence) {
  auto& m = *static_cast<Memory*>(opaque);
  const auto size = static_cast<std::int64_t>(m.bytes.size());
  std::int64_t to = 0;
  switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE:
      return size;
    case SEEK_SET:
      to = offset;
      break;
    case SEEK_CUR:
      to = static_cast<std::int64_t>(m.position) + offset;
      break;
    case SEEK_END:
      to = size + offset;
      break;
    default:
      return AVERROR(EINVAL);
  }
  if (to < 0) return AVERROR(EINVAL);
  m.position = static_cast<std::size_t>(to);
  return to;
}

[[noreturn]] void fail(const char* step, int error) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(error, text, sizeof text);
  throw std::runtime_error(std::string("cannot make the Motion-JPEG AVI clip: libavformat's ") +
                           step + " failed (" + text + ")");
}

struct ContextFree {
  void operator()(AVFormatContext* c) const { avformat_free_context(c); }
};
struct IoFree {
  void operator()(AVIOContext* io) const {
    av_freep(&io->buffer);
    avio_context_free(&io);
  }
};
struct PacketFree {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};

}  // namespace

std::string mux_mjpeg_avi(const std::vector<MjpegFrame>& frames, cv::Size size, double fps) {
  if (frames.empty()) throw std::invalid_argument("a Motion-JPEG clip needs at least one frame");
  if (!(fps > 0)) throw std::invalid_argument("a Motion-JPEG clip needs a positive frame rate");
  AVFormatContext* raw = nullptr;
  if (const int e = avformat_alloc_output_context2(&raw, nullptr, "avi", nullptr); e < 0) {
    fail("avformat_alloc_output_context2(avi)", e);
  }
  std::unique_ptr<AVFormatContext, ContextFree> context(raw);

  Memory memory;
  constexpr int kBuffer = 64 * 1024;
  auto* buffer = static_cast<unsigned char*>(av_malloc(kBuffer));
  if (!buffer) fail("av_malloc", AVERROR(ENOMEM));
  std::unique_ptr<AVIOContext, IoFree> io(
      avio_alloc_context(buffer, kBuffer, 1, &memory, nullptr, write, seek));
  if (!io) {
    av_free(buffer);
    fail("avio_alloc_context", AVERROR(ENOMEM));
  }
  io->seekable = AVIO_SEEKABLE_NORMAL;
  context->pb = io.get();
  context->flags |= AVFMT_FLAG_CUSTOM_IO;

  AVStream* stream = avformat_new_stream(context.get(), nullptr);
  if (!stream) fail("avformat_new_stream", AVERROR(ENOMEM));
  // One tick per frame: 5 fps is 1/5 s, 7.5 fps 2/15 s.
  const AVRational tick = av_inv_q(av_d2q(fps, 1001));
  stream->time_base = tick;
  stream->avg_frame_rate = av_inv_q(tick);
  AVCodecParameters* codec = stream->codecpar;
  codec->codec_type = AVMEDIA_TYPE_VIDEO;
  codec->codec_id = AV_CODEC_ID_MJPEG;
  codec->width = size.width;
  codec->height = size.height;
  if (const int e = avformat_write_header(context.get(), nullptr); e < 0) {
    fail("avformat_write_header", e);
  }

  std::unique_ptr<AVPacket, PacketFree> packet(av_packet_alloc());
  if (!packet) fail("av_packet_alloc", AVERROR(ENOMEM));
  std::int64_t last = -1;
  for (const MjpegFrame& f : frames) {
    const std::int64_t index = std::max(f.index, last + 1);
    last = index;
    // Not reference-counted: av_write_frame writes it as it is, without a copy.
    packet->data = const_cast<unsigned char*>(f.jpeg.data());
    packet->size = static_cast<int>(f.jpeg.size());
    packet->stream_index = stream->index;
    packet->pts = index;
    packet->dts = index;
    packet->duration = 1;
    packet->flags = AV_PKT_FLAG_KEY;
    av_packet_rescale_ts(packet.get(), tick, stream->time_base);
    if (const int e = av_write_frame(context.get(), packet.get()); e < 0) fail("av_write_frame", e);
  }
  if (const int e = av_write_trailer(context.get()); e < 0) fail("av_write_trailer", e);
  avio_flush(io.get());
  context->pb = nullptr;
  return std::move(memory.bytes);
}

}  // namespace yolo::daemon
