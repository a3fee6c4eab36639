"""The Python relay's sources under hostile files: rotated and truncated logs, symbolic links out
of the job dir, lines too long to keep. (Run by test/component/relay/python.test.ts on Python
3.8 and the current python3; plain unittest, so pytest runs them too.)"""

import os
import shutil
import tempfile
import unittest

from agentrl_relay import catalog, textsources
from agentrl_relay.files import FollowedFile
from agentrl_relay.textsources import StepLogSource


def line(step: int) -> str:
    return f"INFO 11-24 10:00:0{step % 10} [monitor.py:135] Step {step}: {{'actor/pg_loss': {step / 4}}}\n"


class Tmp(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pyrelay-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *p):
        return os.path.join(self.dir, *p)


def steps_of(reader, budget=1 << 20):
    out = []
    while True:
        b = reader.next(budget)
        if b is None:
            return out
        for tag, s, _w, v in b.series:
            out.extend((tag, int(x), y) for x, y in zip(s, v))


class RotationTest(Tmp):
    def source(self, path):
        info = {"id": "log:log/trainer.log", "kind": "log", "run": "r", "role": "trainer", "path": "log/trainer.log"}
        return StepLogSource(info, path, lambda level, msg: None)

    def write(self, path, steps, mode="a"):
        with open(path, mode) as f:
            f.writelines(line(s) for s in steps)

    def test_a_rotated_log_is_read_to_its_end_then_the_new_one_from_its_start(self):
        p = self.path("trainer.log")
        self.write(p, range(5))
        r = self.source(p).open(None)
        self.assertEqual([s for _, s, _ in steps_of(r)], list(range(5)))
        self.write(p, range(5, 8))  # written before the rotation: still in the old file
        os.rename(p, p + ".1")
        self.write(p, range(8, 12), mode="w")
        self.assertEqual([s for _, s, _ in steps_of(r)], list(range(5, 12)))
        r.close()

    def test_a_log_truncated_in_place_starts_over_under_a_new_fid(self):
        p = self.path("trainer.log")
        self.write(p, range(6))
        r = self.source(p).open(None)
        steps_of(r)
        before = r.lines.file.fid
        with open(p, "w") as f:  # copytruncate
            f.truncate(0)
        self.write(p, range(100, 103))
        self.assertEqual([s for _, s, _ in steps_of(r)], [100, 101, 102])
        self.assertNotEqual(r.lines.file.fid, before, "a client must not take the new bytes for ones it has")
        r.close()

    def test_a_line_too_long_is_skipped_and_reading_goes_on(self):
        p = self.path("trainer.log")
        saved = textsources.MAX_LOG_LINE
        textsources.MAX_LOG_LINE = 4096
        try:
            self.write(p, [1])
            with open(p, "a") as f:
                f.write("INFO x " + "y" * 20000 + "\n")
            self.write(p, [2, 3])
            src = self.source(p)
            r = src.open(None)
            r.lines.max_line = 4096
            self.assertEqual([s for _, s, _ in steps_of(r, 1024)], [1, 2, 3])
        finally:
            textsources.MAX_LOG_LINE = saved


class CutUnderTheReaderTest(Tmp):
    """A copytruncate that lands between a reader's look (check) and its mark, as it can when a
    watch event woke the relay while logrotate works: the next check still sees it."""

    def followed(self):
        p = self.path("trainer.log")
        with open(p, "w") as f:
            f.writelines(line(s) for s in range(10))
        f = FollowedFile(p, None)
        self.assertTrue(f.open())
        f.check()
        f.offset = f.size()  # read to its end
        f.mark()
        return p, f

    def rewrite(self, p, steps):
        with open(p, "r+") as w:
            w.truncate(0)
        if steps:
            with open(p, "a") as w:
                w.writelines(line(s) for s in steps)

    def test_at_the_live_edge_a_cut_after_the_look_written_past_the_offset_before_the_next_one(self):
        p, f = self.followed()
        f.check()
        self.rewrite(p, [])
        f.mark()  # the read found nothing new (a tfevents reader marks anyway)
        self.rewrite(p, range(100, 130))
        f.check()
        self.assertEqual((f.events, f.offset), (["truncated"], 0))
        f.close()

    def test_at_the_live_edge_a_cut_and_rewrite_between_the_read_and_the_mark(self):
        p, f = self.followed()
        f.check()
        self.rewrite(p, range(100, 130))
        f.mark()
        f.check()
        self.assertEqual((f.events, f.offset), (["truncated"], 0))
        f.close()

    def test_a_cut_after_a_read_that_moved_the_offset(self):
        p, f = self.followed()
        with open(p, "a") as w:
            w.writelines(line(s) for s in range(10, 12))
        f.check()
        buf = f.pread(1 << 20, f.offset)
        f.offset += len(buf)
        self.rewrite(p, [])
        f.mark()
        self.rewrite(p, range(100, 130))
        f.check()
        self.assertEqual((f.events, f.offset), (["truncated"], 0))
        f.close()

    def test_a_cut_and_rewrite_after_a_read_that_moved_the_offset(self):
        p, f = self.followed()
        with open(p, "a") as w:
            w.writelines(line(s) for s in range(10, 12))
        f.check()
        buf = f.pread(1 << 20, f.offset)
        f.offset += len(buf)
        self.rewrite(p, range(100, 130))
        f.mark()
        f.check()
        self.assertEqual((f.events, f.offset), (["truncated"], 0))
        f.close()

    def test_a_cut_and_rewrite_between_the_look_and_the_read(self):
        p, f = self.followed()
        end = f.offset
        f.check()
        self.rewrite(p, list(range(100, 120)))
        buf = f.pread(1 << 20, f.offset)  # from the old offset: a piece of the new file
        f.offset += buf.rfind(b"\n") + 1
        f.mark()
        self.assertGreater(os.path.getsize(p), end)
        f.check()
        self.assertEqual((f.events, f.offset), (["truncated"], 0))
        f.close()


class ConfinementTest(Tmp):
    def test_symbolic_links_out_of_the_job_dir_are_not_followed(self):
        job = self.path("job")
        outside = self.path("outside")
        for d in ("log", "buffer"):
            os.makedirs(os.path.join(outside, d))
        with open(os.path.join(outside, "log", "trainer.log"), "w") as f:
            f.write("INFO 11-24 10:00:00 [m.py:1] Step 1: {'secret': 1}\n")
        with open(os.path.join(outside, "buffer", "x.jsonl"), "w") as f:
            f.write("{}\n")
        with open(os.path.join(outside, "url.txt"), "w") as f:
            f.write("http://127.0.0.1:1\n")
        os.makedirs(os.path.join(job, "monitor", "tensorboard", "explorer"))
        os.symlink(os.path.join(outside, "log"), os.path.join(job, "log"))
        os.symlink(os.path.join(outside, "buffer"), os.path.join(job, "buffer"))
        os.symlink(os.path.join(outside, "url.txt"), os.path.join(job, "explorer_server_url.txt"))
        os.symlink(os.path.join(outside, "log", "trainer.log"), os.path.join(job, "monitor", "tensorboard", "explorer", "events.out.tfevents.1"))
        specs, _ = catalog.discover_job(job, os.path.realpath(job), None)
        self.assertEqual(specs, [])

    def test_a_job_dir_reached_through_a_symbolic_link_is_served(self):
        real = self.path("real", "run")
        os.makedirs(os.path.join(real, "log"))
        with open(os.path.join(real, "log", "trainer.log"), "w") as f:
            f.write("x\n")
        link = self.path("run")
        os.symlink(real, link)
        specs, _ = catalog.discover_job(link, os.path.realpath(link), None)
        self.assertEqual([s["id"] for s in specs], ["log:log/trainer.log"])


if __name__ == "__main__":
    unittest.main()
