# Homebrew formula for recall (template; this folder is laid out as a tap). `bun run build --target all` (or
# `--formula-only` over archives collected from several machines) writes dist/homebrew-recall/Formula/recall.rb with
# the version, the release URL ($RECALL_RELEASE_URL or the GitHub release) and every platform's sha256, and writes
# nothing while one is missing. Publish dist/homebrew-recall as github.com/recall-cli/homebrew-recall, then:
#   brew tap recall-cli/recall && brew install recall-cli/recall/recall
class Recall < Formula
  desc "Search your AI coding sessions (Claude Code, OpenCode) by meaning and by keyword"
  homepage "https://github.com/recall-cli/recall"
  version "@@VERSION@@"
  license "MIT"

  on_macos do
    on_arm do
      url "@@BASE_URL@@/recall-darwin-arm64.tar.gz"
      sha256 "@@SHA256_DARWIN_ARM64@@"
    end
    on_intel do
      url "@@BASE_URL@@/recall-darwin-x64.tar.gz"
      sha256 "@@SHA256_DARWIN_X64@@"
    end
  end

  on_linux do
    on_arm do
      url "@@BASE_URL@@/recall-linux-arm64.tar.gz"
      sha256 "@@SHA256_LINUX_ARM64@@"
    end
    on_intel do
      url "@@BASE_URL@@/recall-linux-x64.tar.gz"
      sha256 "@@SHA256_LINUX_X64@@"
    end
  end

  def install
    bin.install "recall"
  end

  def caveats
    <<~EOS
      To let Claude Code search your past sessions, install the skill:
        recall skill install
      Check the setup (sources, index, model, Claude Code's cleanup period):
        recall doctor
    EOS
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/recall --version")
    assert_match "search", shell_output("#{bin}/recall --help")
  end
end
