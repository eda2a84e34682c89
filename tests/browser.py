"""Headless Chromium through selenium, for the live view's and the simulator's browser tests."""

import os
import shutil

import pytest

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
]


def chromium(user_data_dir, *, phone: tuple[int, int] | None = None, window: tuple[int, int] | None = None):
    """A started Chrome driver (a phone's screen, or a desktop window); skips when chromium is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is a test dependency: pip install -e '.[test]'")
    from selenium.common.exceptions import SessionNotCreatedException
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (binary and driver_path):
        pytest.skip("chromium and chromedriver are not installed (apt-get install chromium chromium-driver; .ci/run does)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS + [f"--user-data-dir={user_data_dir}"]:
        options.add_argument(flag)
    if phone:  # a desktop window is at least 500 pixels wide
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": phone[0], "height": phone[1], "pixelRatio": 1}})
    if window:
        options.add_argument(f"--window-size={window[0]},{window[1]}")
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium fetch a browser or driver
    try:
        return webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    except SessionNotCreatedException as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"chromium cannot start here: {error.msg}")
