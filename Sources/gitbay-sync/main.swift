import GitbaySync
print("gitbay-sync")
