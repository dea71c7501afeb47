// The adaptive idle-poll window of the HTTP I/O threads.
#include <catch2/catch.hpp>

#include "transport/detail/poll_window.hpp"

using skillrt::transport::detail::PollWindow;
using Micros = PollWindow::Micros;

TEST_CASE("PollWindow: closed at first, widens while idle waits are short, up to the bound") {
  PollWindow poll(Micros(50));
  CHECK(poll.window() == Micros(0));
  poll.idle_waited(Micros(30));
  CHECK(poll.window() == Micros(10));
  poll.idle_waited(Micros(30));
  CHECK(poll.window() == Micros(20));
  poll.idle_waited(Micros(30));
  CHECK(poll.window() == Micros(40));
  // Caught within the window: it stays as it is.
  poll.idle_waited(Micros(30));
  CHECK(poll.window() == Micros(40));
  poll.idle_waited(Micros(45));
  CHECK(poll.window() == Micros(50));
  poll.idle_waited(Micros(50));
  CHECK(poll.window() == Micros(50));
}

TEST_CASE("PollWindow: one long idle wait closes it") {
  PollWindow poll(Micros(50));
  for (int i = 0; i < 5; ++i) poll.idle_waited(Micros(45));
  REQUIRE(poll.window() == Micros(50));
  poll.idle_waited(Micros(51));
  CHECK(poll.window() == Micros(0));
}

TEST_CASE("PollWindow: a client that pauses between calls never opens it") {
  PollWindow poll(Micros(50));
  for (int i = 0; i < 100; ++i) {
    poll.idle_waited(Micros(2'000'000));
    CHECK(poll.window() == Micros(0));
  }
}

TEST_CASE("PollWindow: a zero bound turns polling off; a small bound is kept") {
  PollWindow off(Micros(0));
  off.idle_waited(Micros(0));
  off.idle_waited(Micros(1));
  CHECK(off.window() == Micros(0));
  PollWindow small(Micros(4));
  small.idle_waited(Micros(3));
  CHECK(small.window() == Micros(4));
}

TEST_CASE("PollWindow::poll: tries until ready within the window, never when it is closed") {
  PollWindow poll(Micros(50'000));
  int tries = 0;
  // Closed at first: ready() is not called at all.
  CHECK_FALSE(poll.poll(PollWindow::Clock::now(), [&] { return ++tries > 0; }));
  CHECK(tries == 0);
  for (int i = 0; i < 20; ++i) poll.idle_waited(Micros(50'000));  // 10, 20, 40, ... up to the bound
  REQUIRE(poll.window() == Micros(50'000));
  // Ready on the third try.
  CHECK(poll.poll(PollWindow::Clock::now(), [&] { return ++tries == 3; }));
  CHECK(tries == 3);
  // Never ready: gives up once the window has passed.
  const auto start = PollWindow::Clock::now();
  CHECK_FALSE(poll.poll(start, [] { return false; }));
  CHECK(PollWindow::Clock::now() - start >= Micros(50'000));
}

TEST_CASE("PollWindow::idle_ended: measures from the start of the idle moment") {
  PollWindow poll(Micros(50));
  poll.idle_ended(PollWindow::Clock::now() - Micros(20));  // within the bound
  CHECK(poll.window() == Micros(10));
  poll.idle_ended(PollWindow::Clock::now() - std::chrono::milliseconds(5));  // a long pause
  CHECK(poll.window() == Micros(0));
}
