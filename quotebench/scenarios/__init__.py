"""One module per scenario. Each defines SCENARIO (its id) and tasks() -> its four Task tiers.

Adding a scenario is adding a file here: catalogue.py discovers every module of this package.
"""
