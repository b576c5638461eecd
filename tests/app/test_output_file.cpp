// write_file_atomically and OutputBatch (app/output_file.h): a file is written whole or not at all, through a
// temporary that never touches an existing file or follows a link, and is gone afterwards; a batch's files land
// together.
#include "app/output_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("slabcast-output-file-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_, ec);
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static std::string write(const fs::path& path, const std::string& content) {
    return slabcast::write_file_atomically(path.string(), [&](std::FILE* file) {
      return std::fwrite(content.data(), 1, content.size(), file) == content.size();
    });
  }
  // Every name in the folder, so a test sees a temporary left behind.
  std::vector<std::string> names() const {
    std::vector<std::string> all;
    for (const auto& entry : fs::directory_iterator(dir_)) all.push_back(entry.path().filename().string());
    return all;
  }
  fs::path dir_;
};

TEST_F(OutputFileTest, WritesTheContentAndLeavesNoTemporary) {
  const fs::path target = dir_ / "frame.png";
  ASSERT_EQ("", write(target, "first"));
  EXPECT_EQ("first", read(target));
  ASSERT_EQ("", write(target, "second, longer"));
  EXPECT_EQ("second, longer", read(target));
  EXPECT_EQ(std::vector<std::string>{"frame.png"}, names());
}

TEST_F(OutputFileTest, GivesTheFileTheUsualPermissions) {
  const mode_t mask = umask(022);
  const fs::path target = dir_ / "out.ids";
  ASSERT_EQ("", write(target, "x"));
  umask(mask);
  struct stat info {};
  ASSERT_EQ(0, stat(target.c_str(), &info));
  EXPECT_EQ(0644u, info.st_mode & 0777u);
}

TEST_F(OutputFileTest, AFailedBodyLeavesTheOldFileAndNoTemporary) {
  const fs::path target = dir_ / "depth.pfm";
  ASSERT_EQ("", write(target, "complete"));
  const std::string error = slabcast::write_file_atomically(target.string(), [](std::FILE* file) {
    std::fputs("half", file);
    return false;
  });
  EXPECT_NE("", error);
  EXPECT_EQ("complete", read(target));
  EXPECT_EQ(std::vector<std::string>{"depth.pfm"}, names());
}

TEST_F(OutputFileTest, NeverTouchesAnOldStyleTempNameOrFollowsALinkThere) {
  const fs::path target = dir_ / "notes.png";
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "precious";
  std::ofstream(dir_ / "notes.png.tmp") << "the user's own file";
  fs::create_symlink(victim, dir_ / "frame.png.tmp");
  ASSERT_EQ("", write(target, "image"));
  ASSERT_EQ("", write(dir_ / "frame.png", "image"));
  EXPECT_EQ("the user's own file", read(dir_ / "notes.png.tmp"));
  EXPECT_EQ("precious", read(victim));
  EXPECT_TRUE(fs::is_symlink(dir_ / "frame.png.tmp"));
  EXPECT_EQ("image", read(dir_ / "frame.png"));
}

TEST_F(OutputFileTest, ReplacesALinkAtTheTargetInsteadOfWritingThroughIt) {
  const fs::path victim = dir_ / "victim.txt";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, dir_ / "frame.png");
  ASSERT_EQ("", write(dir_ / "frame.png", "image"));
  EXPECT_FALSE(fs::is_symlink(dir_ / "frame.png"));
  EXPECT_EQ("image", read(dir_ / "frame.png"));
  EXPECT_EQ("precious", read(victim));
}

TEST_F(OutputFileTest, NamesOfTheLongestLegalLengthWork) {
  const fs::path target = dir_ / std::string(255, 'n');
  ASSERT_EQ("", write(target, "long"));
  EXPECT_EQ("long", read(target));
}

TEST_F(OutputFileTest, AnUnwritableFolderIsAnErrorNotACrash) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into any folder";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_NE("", write(dir_ / "frame.png", "image"));
}

TEST_F(OutputFileTest, AMissingFolderIsAnError) {
  EXPECT_NE("", write(dir_ / "no-such-folder" / "frame.png", "image"));
  EXPECT_EQ(std::vector<std::string>{}, names());
}

// A process killed by SIGTERM while a file is being written leaves no temporary (and no half target).
TEST_F(OutputFileTest, ATerminatedWriterLeavesNoTemporary) {
  const fs::path target = dir_ / "big.png";
  const pid_t child = fork();
  ASSERT_NE(-1, child);
  if (child == 0) {
    write(target, std::string(1000, 'x'));  // installs the cleanup, as any first write does
    slabcast::write_file_atomically(target.string(), [](std::FILE* file) {
      std::fputs("partial", file);
      std::fflush(file);
      for (;;) pause();  // until the signal
      return true;
    });
    _exit(0);
  }
  // Wait until the child's second temporary exists, then terminate it.
  bool started = false;
  for (int i = 0; i < 2000 && !started; ++i) {
    started = names().size() == 2;
    if (!started) usleep(1000);
  }
  ASSERT_TRUE(started) << "the child never began its second write";
  ASSERT_EQ(0, kill(child, SIGTERM));
  int status = 0;
  ASSERT_EQ(child, waitpid(child, &status, 0));
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "the default action still ends the process";
  EXPECT_EQ(std::vector<std::string>{"big.png"}, names());
  EXPECT_EQ(std::string(1000, 'x'), read(target));
}

// Writers racing for one path: whatever the order, the path always holds one writer's content whole.
TEST_F(OutputFileTest, ConcurrentWritersEachLandAWholeFile) {
  const fs::path target = dir_ / "s.png";
  const std::string a(300000, 'a'), b(200000, 'b');
  for (int round = 0; round < 20; ++round) {
    std::string error_a, error_b;
    std::thread first([&] { error_a = write(target, a); });
    std::thread second([&] { error_b = write(target, b); });
    first.join();
    second.join();
    ASSERT_EQ("", error_a);
    ASSERT_EQ("", error_b);
    const std::string got = read(target);
    ASSERT_TRUE(got == a || got == b) << "round " << round << ": " << got.size() << " bytes, mixed";
  }
  EXPECT_EQ(std::vector<std::string>{"s.png"}, names());
}

// ---- OutputBatch: the several outputs of one run land together ----

std::string add(slabcast::OutputBatch& batch, const fs::path& path, const std::string& content) {
  return batch.add(path.string(), [&](std::FILE* file) {
    return std::fwrite(content.data(), 1, content.size(), file) == content.size();
  });
}

TEST_F(OutputFileTest, ABatchLandsOnlyWhenCommittedAndThenAllOfIt) {
  ASSERT_EQ("", write(dir_ / "frame.png", "old image"));
  slabcast::OutputBatch batch;
  ASSERT_EQ("", add(batch, dir_ / "frame.png", "new image"));
  ASSERT_EQ("", add(batch, dir_ / "frame.ids", "new ids"));
  ASSERT_EQ("", add(batch, dir_ / "frame.pfm", "new depth"));
  EXPECT_EQ("old image", read(dir_ / "frame.png")) << "nothing lands before the commit";
  EXPECT_FALSE(fs::exists(dir_ / "frame.ids"));
  ASSERT_EQ("", batch.commit());
  EXPECT_EQ("new image", read(dir_ / "frame.png"));
  EXPECT_EQ("new ids", read(dir_ / "frame.ids"));
  EXPECT_EQ("new depth", read(dir_ / "frame.pfm"));
  auto all = names();
  std::sort(all.begin(), all.end());
  EXPECT_EQ((std::vector<std::string>{"frame.ids", "frame.pfm", "frame.png"}), all);
}

TEST_F(OutputFileTest, ABatchWithAFailedFileIsDroppedWholeAndLeavesNoTemporary) {
  ASSERT_EQ("", write(dir_ / "frame.png", "old image"));
  {
    slabcast::OutputBatch batch;
    ASSERT_EQ("", add(batch, dir_ / "frame.png", "new image"));
    EXPECT_NE("", add(batch, dir_ / "missing-folder" / "frame.ids", "new ids"));
    const std::string failed = batch.add((dir_ / "frame.pfm").string(), [](std::FILE* file) {
      std::fputs("half", file);
      return false;  // a full disk, say
    });
    EXPECT_NE("", failed);
    // The caller gives up: the batch ends uncommitted.
  }
  EXPECT_EQ("old image", read(dir_ / "frame.png"));
  EXPECT_EQ(std::vector<std::string>{"frame.png"}, names());
}

TEST_F(OutputFileTest, AFailedRenameNamesItsTargetAndRemovesTheRest) {
  fs::create_directories(dir_ / "a-folder");  // renaming a file over a folder fails
  slabcast::OutputBatch batch;
  ASSERT_EQ("", add(batch, dir_ / "a-folder", "cannot land"));
  ASSERT_EQ("", add(batch, dir_ / "second.png", "after the failure"));
  const std::string failed = batch.commit();
  EXPECT_EQ(0u, failed.find((dir_ / "a-folder").string() + ": ")) << failed;
  EXPECT_TRUE(fs::is_directory(dir_ / "a-folder"));
  EXPECT_FALSE(fs::exists(dir_ / "second.png"));
  EXPECT_EQ(std::vector<std::string>{"a-folder"}, names());
}

}  // namespace
