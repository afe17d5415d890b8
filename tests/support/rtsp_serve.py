#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Serves an MP4 file's own H.264 as an RTSP stream on 127.0.0.1, looping, for tests.

    rtsp_serve.py FILE [--port N] [--mount /cam]

Port 0 takes a free one. Prints "serving rtsp://127.0.0.1:PORT/MOUNT" once it listens. The file's
H.264 is sent as it is (no re-encoding), so the stream costs the server almost nothing. Needs
Debian's python3-gi and gir1.2-gst-rtsp-server-1.0 (with GStreamer's base, good and bad
plugins); exits 77 naming what is missing otherwise, so a test can skip. Run it with Debian's
/usr/bin/python3: python3-gi is built for it.
"""
import argparse
import sys

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstRtsp", "1.0")
    gi.require_version("GstRtspServer", "1.0")
    from gi.repository import GLib, Gst, GstRtsp, GstRtspServer
except (ImportError, ValueError) as e:
    print(f"rtsp_serve: {e}; install python3-gi and gir1.2-gst-rtsp-server-1.0", file=sys.stderr)
    sys.exit(77)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mount", default="/cam")
    args = parser.parse_args()

    Gst.init(None)
    missing = [e for e in ("qtdemux", "h264parse", "rtph264pay") if not Gst.ElementFactory.find(e)]
    if missing:
        print(f"rtsp_serve: GStreamer elements missing: {', '.join(missing)}; install "
              "gstreamer1.0-plugins-good and gstreamer1.0-plugins-bad", file=sys.stderr)
        sys.exit(77)

    factory = GstRtspServer.RTSPMediaFactory()
    # config-interval=-1: SPS and PPS before every key frame, so a client that joins (or rejoins)
    # mid-stream can decode from the next one.
    factory.set_launch(
        f'( filesrc location="{args.file}" ! qtdemux ! h264parse ! '
        "rtph264pay name=pay0 pt=96 config-interval=-1 )")
    factory.set_shared(True)
    factory.connect("media-configure", loop_at_end)

    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    server.get_mount_points().add_factory(args.mount, factory)
    if server.attach(None) == 0:
        print(f"rtsp_serve: cannot listen on 127.0.0.1:{args.port}", file=sys.stderr)
        sys.exit(1)
    print(f"serving rtsp://127.0.0.1:{server.get_bound_port()}{args.mount}", flush=True)
    GLib.MainLoop().run()


def loop_at_end(_factory, media):
    """Starts the file again where it ends: the end of stream is held back and the media seeks to
    its start, so clients see one endless stream, as from a camera."""
    pay = media.get_element().get_by_name("pay0")

    def restart():
        _, npt = GstRtsp.rtsp_range_parse("npt=0-")
        media.seek(npt)
        return False

    def on_event(_pad, info):
        if info.get_event().type == Gst.EventType.EOS:
            GLib.idle_add(restart)
            return Gst.PadProbeReturn.DROP
        return Gst.PadProbeReturn.OK

    pay.get_static_pad("sink").add_probe(Gst.PadProbeType.EVENT_DOWNSTREAM, on_event)


if __name__ == "__main__":
    main()
